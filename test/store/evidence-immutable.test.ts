import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { EVIDENCE_TABLES } from '../../src/store/migrations/014-evidence-rewrite-refused.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { storeWithEvidence } from '../helpers/evidence.js';

const refused = async (h: Harness, statement: string): Promise<string> => {
  try {
    await sql.raw(statement).execute(h.store.kysely);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`the database accepted: ${statement}`);
};

/**
 * Evidence refuses rewriting in the database itself (raw SQL, not the app): an operator's
 * UPDATE cannot quietly upgrade a claim, a DELETE cannot remove one, and on PostgreSQL
 * TRUNCATE (which row triggers never see) is refused too. Only a session's own deletion
 * cascade removes its events.
 */
describeEachDialect('evidence tables refuse rewriting in the database', (t, dialect) => {
  it('every evidence table holds rows here, and an UPDATE of any of them fails', async () => {
    const h = t();
    await storeWithEvidence(h);
    for (const table of EVIDENCE_TABLES) {
      const rows = await sql.raw<{ n: number }>(`select count(*) as n from ${table}`).execute(h.store.kysely);
      expect(Number(rows.rows[0]!.n), `${table} has rows`).toBeGreaterThan(0);
    }
    // each table's first column is rewritten with itself: still refused, per row
    const updates: Record<string, string> = {
      audit_log: 'update audit_log set entry = entry',
      audit_checkpoints: 'update audit_checkpoints set hash = hash',
      session_events: "update session_events set actor_basis = 'authenticated'",
      session_deletions: 'update session_deletions set last_title = last_title',
      deletion_links: 'update deletion_links set session_id = session_id',
      session_conversations: 'update session_conversations set conversation_id = conversation_id',
      session_uncles: "update session_uncles set basis = 'authenticated'",
      message_history: 'update message_history set ref = ref',
      human_messages: 'update human_messages set content = content',
      human_message_withdrawals: 'update human_message_withdrawals set actor_id = actor_id',
      coverage_log: 'update coverage_log set reason = reason',
      tokens: "update tokens set kind = 'fleet'",
    };
    expect(Object.keys(updates).sort()).toEqual([...EVIDENCE_TABLES].sort());
    for (const [table, statement] of Object.entries(updates)) expect(await refused(h, statement), table).toMatch(/immutable|written once|evidence/);
  });

  it('DELETE fails while the owning session exists; uncle edges are removable (an act of its own); TRUNCATE fails on PostgreSQL', async () => {
    const h = t();
    const { keep } = await storeWithEvidence(h);
    const deletable = new Set(['session_uncles']);
    for (const table of EVIDENCE_TABLES.filter((x) => !deletable.has(x))) expect(await refused(h, `delete from ${table}`), table).toMatch(/immutable|evidence/);
    expect(
      Number((await sql.raw<{ n: number }>(`select count(*) as n from session_events where session_id = ${keep}`).execute(h.store.kysely)).rows[0]!.n),
    ).toBeGreaterThan(0);
    if (dialect === 'postgres') {
      for (const table of EVIDENCE_TABLES) expect(await refused(h, `truncate ${table} cascade`), table).toMatch(/TRUNCATE is refused|immutable/);
    }
  });

  it('a revocation is written once; a session deletion still cascades its own events', async () => {
    const h = t();
    await storeWithEvidence(h);
    const row = await h.store.kysely.selectFrom('tokens').select(['id']).where('kind', '=', 'human').orderBy('id', 'desc').executeTakeFirstOrThrow();
    await sql.raw(`update tokens set revoked_at = '2026-12-01T00:00:00.000Z' where id = ${row.id}`).execute(h.store.kysely);
    expect(await refused(h, `update tokens set revoked_at = null where id = ${row.id}`)).toMatch(/written once|immutable/);
    expect(await refused(h, `update tokens set revoked_at = '2027-01-01T00:00:00.000Z' where id = ${row.id}`)).toMatch(/written once|immutable/);
    const other = await h.human(uniqueKey('del'));
    const s = (await h.create(other.token, { title: 'goes with its events' })).session;
    expect((await h.request('DELETE', `/api/v1/sessions/${s.id}`, { token: other.token })).status).toBe(200);
    expect(
      Number((await sql.raw<{ n: number }>(`select count(*) as n from session_events where session_id = ${s.id}`).execute(h.store.kysely)).rows[0]!.n),
    ).toBe(0);
  });
});
