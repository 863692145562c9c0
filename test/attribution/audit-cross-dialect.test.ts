import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { exportAuditLines, verifyExportLines } from '../../src/app/audit-verify.js';
import { systemCaller } from '../../src/app/caller.js';
import type { IdSource } from '../../src/app/context.js';
import { changeSetting } from '../../src/app/settings.js';
import { pgAvailable } from '../helpers/databases.js';
import { ManualClock, openHarness, type DialectName, type Harness } from '../helpers/harness.js';

/**
 * docs/design/attribution.md: entries are stored as canonical text, so every dialect hashes the very same
 * bytes. The same sequence of acts, with the same clock and the same ids, must produce the
 * very same log — byte for byte — on SQLite and on PostgreSQL, and each export verifies.
 */
function deterministicIds(): IdSource {
  let uuids = 0;
  let blocks = 0;
  return {
    uuid: () => `00000000-0000-4000-8000-${(++uuids).toString(16).padStart(12, '0')}`,
    bytes: (n) => {
      const out = Buffer.alloc(n);
      for (let i = 0; i < n; i += 32) createHash('sha256').update(`block ${++blocks}`).digest().copy(out, i);
      return out;
    },
  };
}

async function scriptedLog(dialect: DialectName): Promise<string[]> {
  const h: Harness = await openHarness(dialect, { clock: new ManualClock(), ids: deterministicIds() });
  try {
    const clock = h.ctx.clock as ManualClock;
    const ok = async (res: Promise<{ status: number; text: string }>) => {
      const r = await res;
      if (r.status >= 300) throw new Error(`${dialect}: ${r.status} ${r.text}`);
      return r;
    };
    const { token } = await h.human('alice', { displayName: 'Alice' });
    const root = await h.create(token, { prompt: 'Plan the release\nwith details', attach: true });
    clock.advance(1000);
    const child = await h.create(root.session_token, { title: 'child ✓ ünïcode' });
    await ok(h.request('PATCH', `/api/v1/sessions/${child.session.id}`, { token, body: { title: 'renamed', starred: true, model: 'm-2' } }));
    clock.advance(1000);
    await ok(h.request('POST', `/api/v1/sessions/${root.session.id}/stop`, { token, body: {} }));
    await ok(h.request('POST', `/api/v1/sessions/${root.session.id}/runtime`, { token: root.session_token, body: { state: 'exited', code: 0 } }));
    await ok(h.request('POST', `/api/v1/sessions/${root.session.id}/archive`, { token: h.fleetKey, body: { acting_session_id: child.session.id } }));
    await ok(h.request('POST', `/api/v1/sessions/${root.session.id}/unarchive`, { token, body: {} }));
    await h.create(h.fleetKey, { title: 'idempotent' }, { 'idempotency-key': 'k1' });
    await h.create(h.fleetKey, { title: 'idempotent' }, { 'idempotency-key': 'k1' });
    clock.advance(1000);
    await changeSetting(h.ctx, systemCaller('cli'), 'checkpoint_key', 'generate');
    await ok(h.request('DELETE', `/api/v1/sessions/${child.session.id}`, { token }));
    const lines: string[] = [];
    for await (const line of exportAuditLines(h.store.kysely)) lines.push(line);
    return lines;
  } finally {
    await h.close();
  }
}

async function* iterate(lines: string[]): AsyncGenerator<string> {
  yield* lines;
}

describe.skipIf(!pgAvailable())('the same log on both dialects', () => {
  it('the same acts produce byte-identical exported logs on SQLite and PostgreSQL, and each verifies', async () => {
    const sqlite = await scriptedLog('sqlite');
    const postgres = await scriptedLog('postgres');
    expect(sqlite.length).toBeGreaterThan(15);
    const kinds = sqlite.map((l) => JSON.parse(JSON.parse(l).entry).kind as string);
    expect(new Set(kinds)).toEqual(new Set(['token_issued', 'coverage_changed', 'session_event', 'human_message', 'setting_changed', 'session_deletion']));
    expect(postgres).toEqual(sqlite);
    for (const lines of [sqlite, postgres]) {
      const report = await verifyExportLines(iterate(lines));
      expect(report).toMatchObject({ ok: true, entries: lines.length, broken: null });
    }
  });
});
