import { WarrantError } from '../../core/errors.js';
import { authorize, requireSession } from '../access.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { inWriteTx } from '../write-scope.js';

export const MAX_TRANSCRIPT_RECORDS = 1000;

/** The runtime appends transcript records; they live off the session row (spec 01). */
export async function appendTranscript(ctx: AppContext, caller: Caller, ref: string, records: unknown[]): Promise<{ appended: number }> {
  if (records.length === 0) return { appended: 0 };
  if (records.length > MAX_TRANSCRIPT_RECORDS) {
    throw new WarrantError('invalid-request', `records: at most ${MAX_TRANSCRIPT_RECORDS} per call.`, { details: { field: 'records' } });
  }
  return inWriteTx(ctx, async (w) => {
    const session = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'runtime', session);
    await w.tx
      .insertInto('session_transcripts')
      .values(records.map((r) => ({ session_id: session.id, record: JSON.stringify(r), created_at: w.now })))
      .execute();
    return { appended: records.length };
  });
}

export async function readTranscript(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: { cursor?: string; limit?: number },
): Promise<{ records: { id: number; record: unknown; createdAt: string }[]; nextCursor: string | null }> {
  const db = ctx.store.kysely;
  const session = await requireSession(db, ctx, caller, ref);
  await authorize(db, ctx, caller, 'read', session);
  const limit = Math.min(Math.max(input.limit ?? 100, 1), 500);
  let q = db.selectFrom('session_transcripts').select(['id', 'record', 'created_at']).where('session_id', '=', session.id);
  if (input.cursor) q = q.where('id', '>', decodeCursor(input.cursor, 'transcript'));
  const rows = await q.orderBy('id').limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  return {
    records: page.map((r) => ({ id: Number(r.id), record: JSON.parse(r.record) as unknown, createdAt: r.created_at })),
    nextCursor: rows.length > limit ? encodeCursor('transcript', Number(page[page.length - 1]!.id)) : null,
  };
}
