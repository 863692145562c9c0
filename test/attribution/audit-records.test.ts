import { sql } from 'kysely';
import { expect, it, vi } from 'vitest';
import { canonicalJson } from '../../src/app/audit.js';
import { verifyStoredRecords } from '../../src/app/audit-records.js';
import { runCli, storeArgs } from '../helpers/cli.js';
import { storeWithEvidence } from '../helpers/evidence.js';
import { systemCaller } from '../../src/app/caller.js';
import { issueHumanToken, revokeIssuedToken } from '../../src/app/roster.js';
import { describeEachDialect, openHarness, uniqueKey, type DialectName, type Harness } from '../helpers/harness.js';

// the last case runs the built binary; a start takes seconds on a loaded machine (a hang guard, not a performance assertion)
vi.setConfig({ testTimeout: 240_000 });

const run = async (h: Harness, statements: string[]) => {
  for (const s of statements) await sql.raw(s).execute(h.store.kysely);
};

/** What an operator with the database's password can do: drop the refusal triggers, then rewrite. */
async function tamper(h: Harness, fixture: Awaited<ReturnType<typeof storeWithEvidence>>) {
  for (const table of ['session_events', 'session_uncles', 'session_deletions', 'deletion_links']) await run(h, h.store.dropImmutableTriggersSql(table));
  const event = (
    await sql<{
      id: number;
      session_id: number;
      seq: number;
    }>`select id, session_id, seq from session_events where session_id = ${fixture.keep} and digest_key is not null order by seq limit 1`.execute(
      h.store.kysely,
    )
  ).rows[0]!;
  await sql`update session_events set details = ${JSON.stringify({ title: 'rewritten' })} where id = ${event.id}`.execute(h.store.kysely);
  await sql`update session_uncles set basis = 'authenticated' where session_id = ${fixture.uncle.junior} and uncle_session_id = ${fixture.uncle.uncle}`.execute(
    h.store.kysely,
  );
  const deletion = (
    await sql<{
      id: number;
    }>`select id from session_deletions where session_id = ${fixture.doomed}`.execute(h.store.kysely)
  ).rows[0]!;
  await sql`delete from deletion_links where deletion_id = ${deletion.id}`.execute(h.store.kysely);
  await sql`delete from session_deletions where id = ${deletion.id}`.execute(h.store.kysely);
  return {
    event: `${event.session_id}/${event.seq}`,
    uncle: `${fixture.uncle.junior}>${fixture.uncle.uncle}`,
    deletion: String(Number(deletion.id)),
  };
}

/** The seq of the log entry that records a record, found by reading the log itself. */
async function seqOf(h: Harness, match: (e: Record<string, unknown>) => boolean): Promise<number> {
  const rows = (
    await sql<{
      seq: number;
      entry: string;
    }>`select seq, entry from audit_log order by seq`.execute(h.store.kysely)
  ).rows;
  const hits = rows.filter((r) => match(JSON.parse(r.entry))).map((r) => Number(r.seq));
  return hits[hits.length - 1]!;
}

/** Each case alters its store: a store of its own, thrown away after. */
async function onFreshStore(dialect: DialectName, fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await openHarness(dialect);
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

describeEachDialect('audit verify --records', (_t, dialect) => {
  it('an untouched store passes: every evidence table has records verified, none found wrong', () =>
    onFreshStore(dialect, async (h) => {
      await storeWithEvidence(h);
      const r = await verifyStoredRecords(h.store, { pageSize: 3 });
      expect(r.findings).toEqual([]);
      expect(r.ok).toBe(true);
      for (const table of [
        'session_events',
        'session_deletions',
        'session_uncles',
        'human_messages',
        'human_message_withdrawals',
        'message_history',
        'coverage_log',
        'tokens',
      ] as const) {
        expect(r.tables[table].verified, table).toBeGreaterThan(0);
      }
      // the deleted session's events went with it, recorded by its deletion entry
      expect(r.tables.session_events.gone_with_session).toBeGreaterThan(0);
    }));

  it('evidence details are stored as the canonical text their digest is of; the same JSON re-encoded (key order, spacing) still verifies', () =>
    onFreshStore(dialect, async (h) => {
      await storeWithEvidence(h);
      const rows = (
        await sql<{ id: number; details: string }>`select id, details from session_events where digest_key is not null order by id`.execute(h.store.kysely)
      ).rows;
      for (const row of rows) expect(row.details).toBe(canonicalJson(JSON.parse(row.details)));
      const wide = rows.find((r) => Object.keys(JSON.parse(r.details) as object).length >= 2)!;
      const reordered = Object.fromEntries(Object.entries(JSON.parse(wide.details) as object).reverse());
      const reencoded = JSON.stringify(reordered, null, 2);
      expect(reencoded).not.toBe(wide.details);
      await run(h, h.store.dropImmutableTriggersSql('session_events'));
      await sql`update session_events set details = ${reencoded} where id = ${wide.id}`.execute(h.store.kysely);
      const r = await verifyStoredRecords(h.store, { pageSize: 3 });
      expect(r.findings).toEqual([]);
      expect(r.tables.session_events.verified).toBe(rows.length);
    }));

  it("a store altered behind Warrant's back fails, naming each altered record by table, id and seq", () =>
    onFreshStore(dialect, async (h) => {
      const fixture = await storeWithEvidence(h);
      const ids = await tamper(h, fixture);
      const [eventSession, eventSeq] = ids.event.split('/').map(Number);
      const expected = [
        {
          table: 'session_events',
          id: ids.event,
          problem: 'differs',
          fields: ['details_digest'],
          seq: await seqOf(h, (e) => e.kind === 'session_event' && e.session_id === eventSession && e.event_seq === eventSeq),
        },
        {
          table: 'session_uncles',
          id: ids.uncle,
          problem: 'differs',
          fields: ['basis'],
          seq: await seqOf(h, (e) => e.kind === 'session_event' && e.type === 'uncle_linked' && e.session_id === fixture.uncle.junior),
        },
        {
          table: 'session_deletions',
          id: ids.deletion,
          problem: 'missing',
          seq: await seqOf(h, (e) => e.kind === 'session_deletion' && e.deletion_id === Number(ids.deletion)),
        },
      ];
      const r = await verifyStoredRecords(h.store, { pageSize: 2 });
      expect(r.ok).toBe(false);
      expect(r.findings_total).toBe(3);
      expect(r.findings).toEqual(expect.arrayContaining(expected.map((x) => expect.objectContaining(x))));
      // in log order
      expect(r.findings.map((f) => f.seq)).toEqual([...expected.map((x) => x.seq)].sort((a, b) => a - b));
    }));

  it('a record inserted with no log entry is reported as unlogged; so is a log entry whose event row was removed', () =>
    onFreshStore(dialect, async (h) => {
      const fixture = await storeWithEvidence(h);
      await run(h, h.store.dropImmutableTriggersSql('session_events'));
      const last = (
        await sql<{
          seq: number;
        }>`select max(seq) as seq from session_events where session_id = ${fixture.keep}`.execute(h.store.kysely)
      ).rows[0]!;
      const seq = Number(last.seq);
      await sql`insert into session_events
        (session_id, seq, type, details, actor_id, actor_basis, caused_by_actor_id, cause_basis, credential_id, created_at, digest_key)
        values (${fixture.keep}, ${seq + 1}, 'title_changed', '{}', null, 'authenticated', null, null, null,
          '2026-11-29T12:00:00.000Z', ${'ab'.repeat(32)})`.execute(h.store.kysely);
      await sql`delete from session_events where session_id = ${fixture.keep} and seq = ${seq}`.execute(h.store.kysely);
      const r = await verifyStoredRecords(h.store);
      expect(r.findings).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            table: 'session_events',
            id: `${fixture.keep}/${seq + 1}`,
            problem: 'unlogged',
            seq: null,
          }),
          expect.objectContaining({
            table: 'session_events',
            id: `${fixture.keep}/${seq}`,
            problem: 'missing',
          }),
        ]),
      );
      expect(r.findings_total, JSON.stringify(r.findings)).toBe(2);
    }));

  it("a logged revocation undone behind Warrant's back (revoked_at cleared) is a finding on the token_revoked entry", () =>
    onFreshStore(dialect, async (h) => {
      const { user } = await h.human(uniqueKey('rev'));
      const issued = await issueHumanToken(h.ctx, systemCaller('cli'), user.key);
      await revokeIssuedToken(h.ctx, systemCaller('cli'), issued.credentialId);
      expect((await verifyStoredRecords(h.store)).ok).toBe(true);
      await run(h, h.store.dropImmutableTriggersSql('tokens'));
      // SQLite keeps the set-once rule in a trigger of its own
      if (dialect === 'sqlite') await run(h, ['drop trigger if exists tokens_revoked_at_once']);
      await sql`update tokens set revoked_at = null where id = ${issued.credentialId}`.execute(h.store.kysely);
      const r = await verifyStoredRecords(h.store);
      expect(r.findings).toEqual([expect.objectContaining({ table: 'tokens', id: String(issued.credentialId), problem: 'differs', fields: ['revoked_at'] })]);
    }));

  it('the built CLI: exit 0 on the untouched store, exit 1 naming each altered record after tampering', () =>
    onFreshStore(dialect, async (h) => {
      const fixture = await storeWithEvidence(h);
      const ok = await runCli(['audit', 'verify', '--records', ...storeArgs(h)]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toMatch(/OK: [\d,]+ evidence records match their log entries\./);
      const ids = await tamper(h, fixture);
      const bad = await runCli(['audit', 'verify', '--records', ...storeArgs(h)]);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toContain('RECORDS DO NOT MATCH THE LOG: 3 finding(s)');
      expect(bad.stdout).toMatch(
        new RegExp(`session_events ${ids.event} seq \\d+: session ${ids.event.replace('/', ' event ')} differs from its log entry \\(details_digest\\)`),
      );
      expect(bad.stdout).toMatch(new RegExp(`session_uncles ${ids.uncle} seq \\d+: .* differs from its log entry \\(basis\\)`));
      expect(bad.stdout).toMatch(new RegExp(`session_deletions ${ids.deletion} seq \\d+: deletion record ${ids.deletion} is missing`));
      const json = JSON.parse((await runCli(['audit', 'verify', '--records', '--json', ...storeArgs(h)])).stdout);
      expect(json).toMatchObject({
        ok: false,
        chain_ok: true,
        records: { ok: false, findings_total: 3 },
      });
    }));
});
