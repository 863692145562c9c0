import fc from 'fast-check';
import { expect, it } from 'vitest';
import { appendAuditEntries, canonicalJson, nodeChainHasher, type AuditEntryDraft } from '../../src/app/audit.js';
import { verifyStoredChain } from '../../src/app/audit-verify.js';
import { AUDIT_SCHEMA_VERSION, GENESIS_PREV_HASH } from '../../src/core/audit-chain.js';
import { auditHead, auditPage, type AuditRow } from '../../src/store/audit-repo.js';
import { RESULT_UNUSED } from '../../src/store/dialect/dialect.js';
import { openStore } from '../../src/store/connect.js';
import type { StoreDialect } from '../../src/store/dialect/dialect.js';
import { createTestDatabase } from '../helpers/databases.js';
import { describePostgres } from '../helpers/postgres-only.js';

/**
 * On PostgreSQL the server chains an append's rows itself (auditRowsFromHeadCtes: sha256 in
 * SQL, the head read by the append's own statement), so nobody waits for the chain lock's
 * answer. Every row it writes must be the row the chain rule (core/audit-chain.ts) gives.
 */

/** Appends the drafts in one transaction, as a write's flush does; returns the rows it wrote. */
async function append(store: StoreDialect, drafts: readonly AuditEntryDraft[], live = false): Promise<AuditRow[]> {
  const before = (await auditHead(store.kysely))?.seq ?? 0;
  const events = live ? [{ type: 'test_event', sessionId: null, ownerUserId: null, payload: '{}', now: '2026-12-05T12:00:00.000Z' }] : [];
  await store.kysely.transaction().execute((tx) => appendAuditEntries(tx, store, drafts, { events, notifyChannel: 'warrant_test' }));
  return auditPage(store.kysely, before, drafts.length + 1);
}

/** What the chain rule makes of these drafts after `head`, computed here. */
function expectedRows(head: { seq: number; hash: string } | null, drafts: readonly AuditEntryDraft[]): AuditRow[] {
  let seq = head?.seq ?? 0;
  let prevHash = head?.hash ?? GENESIS_PREV_HASH;
  return drafts.map((draft) => {
    seq++;
    const entry = canonicalJson({ ...draft, schema_version: AUDIT_SCHEMA_VERSION, seq });
    const row = { seq, entry, prevHash, hash: nodeChainHasher(prevHash, entry) };
    prevHash = row.hash;
    return row;
  });
}

describePostgres('the audit chain computed by the server', (t) => {
  it('the first entry of an empty log chains on the genesis hash; the append reads the head in its own statement, after the lock, and nobody waits for either', async () => {
    // a migrated store with no app on it yet: its log is empty
    const database = await createTestDatabase('postgres');
    const store = await openStore({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile });
    try {
      expect(await auditHead(store.kysely)).toBeNull();
      const drafts = [{ kind: 'test_entry', at: '2026-12-05T12:00:00.000Z', n: 1 }];
      store.queryLog.start();
      const rows = await append(store, drafts, true);
      const log = store.queryLog.stop();
      expect(rows).toEqual(expectedRows(null, drafts));
      expect(rows[0]!.prevHash).toBe(GENESIS_PREV_HASH);
      // the lock, then the one statement with the live event and the rows, both sent without waiting
      const lock = log.findIndex((q) => q.includes('pg_advisory_xact_lock'));
      expect(log[lock]!.startsWith(RESULT_UNUSED)).toBe(true);
      expect(log[lock + 1]!.startsWith(RESULT_UNUSED)).toBe(true);
      expect(log[lock + 1]).toContain('insert into live_events');
      expect(log[lock + 1]).toContain('insert into audit_log');
      expect(log[lock + 1]).toContain('sha256(');
      expect(log[lock + 2]).toMatch(/^commit$/i);
      // no head read in the transaction: the statement finds it
      const begin = log.findIndex((q) => /^begin$/i.test(q));
      expect(begin).toBeGreaterThanOrEqual(0);
      expect(log.slice(begin, lock + 3)).toHaveLength(4);
      // and the next append chains on it
      const next = [{ kind: 'test_entry', at: '2026-12-05T12:00:00.000Z', n: 2 }];
      expect(await append(store, next)).toEqual(expectedRows(rows[0]!, next));
      expect(await verifyStoredChain(store.kysely)).toMatchObject({ ok: true });
    } finally {
      await store.destroy();
      await database.drop();
    }
  });

  it('any drafts, one to five per append, with or without live events: every row is the chain rule’s, and the log verifies', async () => {
    const h = t();
    const value = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
    );
    const draft = fc.record({
      kind: fc.constantFrom('session_event', 'test_entry', 'message_payload_reclaimed'),
      at: fc.constant('2026-12-05T12:00:00.000Z'),
      fields: fc.dictionary(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), value, { maxKeys: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(draft, { minLength: 1, maxLength: 5 }), fc.boolean(), async (generated, live) => {
        const drafts: AuditEntryDraft[] = generated.map((d) => ({ ...d.fields, kind: d.kind, at: d.at }));
        const head = await auditHead(h.store.kysely);
        const rows = await append(h.store, drafts, live);
        expect(rows).toEqual(expectedRows(head, drafts));
      }),
      { numRuns: 60 },
    );
    expect(await verifyStoredChain(h.store.kysely)).toMatchObject({ ok: true });
  });

  it('an entry that holds the seq stand-in’s digits is chained by this process on the head it reads, and the log still verifies', async () => {
    const h = t();
    const standIn = Number.MAX_SAFE_INTEGER;
    const drafts = [
      { kind: 'test_entry', at: '2026-12-05T12:00:00.000Z', n: standIn },
      { kind: 'test_entry', at: '2026-12-05T12:00:00.000Z', note: `${standIn}` },
    ];
    const head = await auditHead(h.store.kysely);
    h.store.queryLog.start();
    const rows = await append(h.store, drafts);
    const log = h.store.queryLog.stop();
    expect(rows).toEqual(expectedRows(head, drafts));
    expect(log.some((q) => q.includes('sha256('))).toBe(false);
    expect(await verifyStoredChain(h.store.kysely)).toMatchObject({ ok: true });
  });

  it('a large append (more than the server chains) is chained by this process, and the log verifies', async () => {
    const h = t();
    const drafts = Array.from({ length: 40 }, (_, n) => ({ kind: 'test_entry', at: '2026-12-05T12:00:00.000Z', n }));
    const head = await auditHead(h.store.kysely);
    h.store.queryLog.start();
    const rows = await append(h.store, drafts, true);
    const log = h.store.queryLog.stop();
    expect(rows).toEqual(expectedRows(head, drafts));
    // one CTE per row would cost the server's planner more than the rows, under the lock
    expect(log.some((q) => q.includes('sha256('))).toBe(false);
    expect(await verifyStoredChain(h.store.kysely)).toMatchObject({ ok: true });
  });
});
