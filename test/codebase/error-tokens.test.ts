import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/core/errors.js';
import { scanTokens, sourceFiles } from './error-tokens.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * Constructions whose token is a parameter, not a literal: the forwarders' own bodies, and a
 * decision's token typed by the message-refusal table. Their callers' literals are scanned.
 */
const DYNAMIC_ALLOWED = new Set([
  'app/web-auth.ts: token',
  'core/signed-note.ts: token',
  'core/message-refusals.ts: token',
  'app/messages/send-message.ts: decision.token',
]);

const withoutLine = (site: string) => site.replace(/:\d+: /, ': ');

describe('the closed error vocabulary (core/errors.ts ERROR_STATUS)', () => {
  const scan = scanTokens(sourceFiles(SRC));

  it('sees the real code (a sanity floor, so an empty scan cannot pass)', () => {
    expect(scan.tokens.length).toBeGreaterThan(150);
    expect(scan.tokens.some((t) => t.token === 'session-not-found')).toBe(true);
    expect(scan.tokens.some((t) => t.token === 'sign-in-failed')).toBe(true); // through a forwarder
  });

  it('every token src/ throws or answers has a row in the table', () => {
    const missing = scan.tokens.filter((t) => !Object.hasOwn(ERROR_STATUS, t.token)).map((t) => `${t.file}:${t.line}: ${t.token}`);
    expect(missing, 'add a row to ERROR_STATUS for each').toEqual([]);
  });

  it('no token is built at run time outside the known forwarders', () => {
    const unknown = scan.dynamic.filter((d) => !DYNAMIC_ALLOWED.has(withoutLine(d)));
    expect(unknown, 'pass a literal token (or type the parameter KnownErrorToken and list the forwarder)').toEqual([]);
    const stale = [...DYNAMIC_ALLOWED].filter((a) => !scan.dynamic.some((d) => withoutLine(d) === a));
    expect(stale, 'forwarders listed here that are gone — remove them').toEqual([]);
  });

  it('catches a token without a row, a forwarded one, a body and a built one (negative case)', () => {
    const fixture = scanTokens([
      { file: 'app/x.ts', text: "throw new WarrantError('fixture-token-without-row', 'No.', { details: {} });" },
      { file: 'app/y.ts', text: "function refuse(token: string, m: string) {}\nthrow refuse(\n  'fixture-forwarded', 'No.');" },
      { file: 'http/z.ts', text: "return c.json({ error: 'fixture-body' }, 418);" },
      {
        file: 'app/w.ts',
        text: 'throw new WarrantError(`${kind}-gone`, "No.");\nthrow new WarrantError(kind === 1 ? \'not-found\' : "fixture-ternary", "No.");',
      },
    ]);
    const missing = fixture.tokens.filter((t) => !Object.hasOwn(ERROR_STATUS, t.token)).map((t) => `${t.file}:${t.line}: ${t.token}`);
    expect(missing).toEqual([
      'app/x.ts:1: fixture-token-without-row',
      'app/y.ts:2: fixture-forwarded',
      'http/z.ts:1: fixture-body',
      'app/w.ts:2: fixture-ternary',
    ]);
    expect(fixture.dynamic).toEqual(['app/w.ts:1: `${kind}-gone`']);
  });

  it('each status in the table is an HTTP error status', () => {
    for (const [token, status] of Object.entries(ERROR_STATUS)) expect([token, status >= 400 && status < 600]).toEqual([token, true]);
  });
});
