import { WarrantError } from '../core/errors.js';

/** Opaque list cursors: the kind and a position, base64url. A cursor of one list is refused by another. */
export function encodeCursor(kind: string, position: number | string): string {
  return Buffer.from(`${kind}:${position}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, kind: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const [k, value] = text.split(':', 2);
  const n = Number(value);
  if (k !== kind || value === undefined || !Number.isSafeInteger(n)) {
    throw new WarrantError('invalid-request', 'cursor: not a cursor of this list; pass next_cursor from the previous page unchanged.', {
      details: { field: 'cursor' },
    });
  }
  return n;
}
