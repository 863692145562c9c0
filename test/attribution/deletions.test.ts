import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { keyedDigest } from '../../src/app/audit.js';
import { auditHead } from '../../src/store/audit-repo.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { credentialIdOf, eventsOf } from '../helpers/events.js';

/** docs/design/attribution.md "Deletion records". */
async function deletionRows(h: Harness, uid: string) {
  return h.store.kysely.selectFrom('session_deletions').selectAll().where('session_uid', '=', uid).execute();
}

describeEachDialect('deletion records (docs/design/attribution.md)', (t) => {
  it('a delete writes exactly one record: actor and cause with bases, credential, via, last title, uid, owner, lineage parent, affected children, counts', async () => {
    const h = t();
    const key = uniqueKey('olga');
    const { token } = await h.human(key);
    const grand = (await h.create(token, { title: 'grand' })).session;
    const doomed = (await h.create(token, { title: 'the doomed one', parent_session_id: grand.id })).session;
    const childB = (await h.create(h.fleetKey, { title: 'child b', parent_session_id: doomed.id })).session;
    const childA = (await h.create(h.fleetKey, { title: 'child a', parent_session_id: doomed.id })).session;
    const legacy = (await h.create(h.fleetKey, { title: 'legacy child', custom_metadata: { router_session_id: String(doomed.id) } })).session;
    await h.request('PATCH', `/api/v1/sessions/${doomed.id}`, { token, body: { starred: true } });
    const eventCount = (await eventsOf(h, doomed.id)).length;
    expect(eventCount).toBe(2);

    const res = await h.request('DELETE', `/api/v1/sessions/${doomed.id}`, { token });
    expect(res.status).toBe(200);
    const d = res.body.deletion;
    expect(d).toMatchObject({
      session_id: doomed.id,
      session_uid: doomed.uid,
      last_title: 'the doomed one',
      actor: { kind: 'human', ref: key, basis: 'authenticated' },
      actor_basis: 'authenticated',
      cause: { kind: 'human', ref: key, basis: 'authenticated' },
      cause_basis: 'authenticated',
      credential_id: await credentialIdOf(h, token),
      owner: key,
      lineage_parent_id: grand.id,
      via: 'rest',
      event_count: eventCount,
      human_message_count: 0,
    });
    // ordered by kind then id; the legacy child's row does not change, its derived parent is gone
    expect(d.affected).toEqual(
      [
        { kind: 'child', id: childB.id, action: 'parent_cleared' },
        { kind: 'child', id: childA.id, action: 'parent_cleared' },
        { kind: 'child', id: legacy.id, action: 'legacy_parent_gone' },
      ].sort((a, b) => a.id - b.id),
    );
    expect(await deletionRows(h, doomed.uid)).toHaveLength(1);

    // the session and its events are gone; the children stay, their parent cleared
    expect((await h.request('GET', `/api/v1/sessions/${doomed.id}`, { token })).status).toBe(404);
    expect(await h.store.kysely.selectFrom('session_events').select('id').where('session_id', '=', doomed.id).execute()).toEqual([]);
    const a = (await h.request('GET', `/api/v1/sessions/${childA.id}`, { token: h.fleetKey })).body.session;
    expect(a.parent_session_id).toBeNull();
    expect((await h.request('GET', `/api/v1/sessions/${legacy.id}`, { token: h.fleetKey })).body.session.lineage_parent_id).toBeNull();

    // its audit entry carries a keyed digest of the last title, never the title
    const row = (await deletionRows(h, doomed.uid))[0]!;
    const entries = (await h.store.kysely.selectFrom('audit_log').select('entry').execute()).map((r) => JSON.parse(r.entry));
    const entry = entries.find((e) => e.kind === 'session_deletion' && e.session_uid === doomed.uid);
    expect(entry).toMatchObject({ session_id: doomed.id, via: 'rest', event_count: eventCount, lineage_parent_id: grand.id, affected: d.affected });
    expect(entry.last_title_digest).toBe(keyedDigest(row.digest_key!, 'the doomed one'));
    expect(JSON.stringify(entry)).not.toContain('doomed one');
  });

  it('the CLI names itself in a header: via cli', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('pat'));
    const s = (await h.create(token, { title: 'x' })).session;
    const res = await h.request('DELETE', `/api/v1/sessions/${s.id}`, { token, headers: { 'x-warrant-client': 'cli' } });
    expect(res.body.deletion.via).toBe('cli');
  });

  it('a refused delete writes nothing: fleet key, session token, client; a missing session is a 404', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('quinn'));
    const s = await h.create(token, { title: 'keep me', attach: true });
    const clientKey = await h.clientKey(`c${Date.now().toString(36)}`);
    for (const caller of [h.fleetKey, s.session_token, clientKey]) {
      const res = await h.request('DELETE', `/api/v1/sessions/${s.session.id}`, { token: caller });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden');
    }
    expect(await deletionRows(h, s.session.uid)).toEqual([]);
    const missing = await h.request('DELETE', '/api/v1/sessions/999999999', { token });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('session-not-found');
  });

  it('if the deletion record cannot be written, the delete fails and nothing is deleted', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('rex'));
    const s = (await h.create(token, { title: 'unrecordable' })).session;
    const child = (await h.create(token, { title: 'its child', parent_session_id: s.id })).session;
    const uid = s.uid;
    // a test-only trigger makes exactly this session's deletion record fail to insert
    const postgres = h.dialect === 'postgres';
    const create = postgres
      ? [
          `create function t_refuse_deletion() returns trigger language plpgsql as $$ begin raise exception 'refused by test'; end $$`,
          `create trigger t_refuse_deletion before insert on session_deletions for each row when (new.session_uid = '${uid}') execute function t_refuse_deletion()`,
        ]
      : [
          `create trigger t_refuse_deletion before insert on session_deletions when new.session_uid = '${uid}' begin select raise(abort, 'refused by test'); end`,
        ];
    const drop = postgres ? ['drop trigger t_refuse_deletion on session_deletions', 'drop function t_refuse_deletion()'] : ['drop trigger t_refuse_deletion'];
    for (const stmt of create) await sql.raw(stmt).execute(h.store.kysely);
    const headBefore = await auditHead(h.store.kysely);
    try {
      const res = await h.request('DELETE', `/api/v1/sessions/${s.id}`, { token });
      expect(res.status).toBe(500);
      expect(res.body.error).toBe('internal-error');
    } finally {
      for (const stmt of drop) await sql.raw(stmt).execute(h.store.kysely);
    }
    expect((await h.request('GET', `/api/v1/sessions/${s.id}`, { token })).status).toBe(200);
    expect((await eventsOf(h, s.id)).map((e) => e.type)).toEqual(['created']);
    expect((await h.request('GET', `/api/v1/sessions/${child.id}`, { token })).body.session.parent_session_id).toBe(s.id);
    expect(await deletionRows(h, uid)).toEqual([]);
    expect(await auditHead(h.store.kysely)).toEqual(headBefore);
    // with the trigger gone the same delete goes through
    expect((await h.request('DELETE', `/api/v1/sessions/${s.id}`, { token })).status).toBe(200);
  });

  it('deletion records are immutable in the database: UPDATE and DELETE fail', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('sue'));
    const s = (await h.create(token, { title: 'x' })).session;
    await h.request('DELETE', `/api/v1/sessions/${s.id}`, { token });
    const db = h.store.kysely;
    await expect(db.updateTable('session_deletions').set({ last_title: 'rewritten' }).where('session_uid', '=', s.uid).execute()).rejects.toThrow(/immutable/);
    await expect(db.deleteFrom('session_deletions').where('session_uid', '=', s.uid).execute()).rejects.toThrow(/immutable/);
    expect((await deletionRows(h, s.uid))[0]!.last_title).toBe('x');
  });

  it('GET /session_deletions filters by actor, time range and uid; a malformed filter is refused', async () => {
    const h = t();
    const clock = h.ctx.clock;
    const aliceKey = uniqueKey('tia');
    const bobKey = uniqueKey('uma');
    const alice = await h.human(aliceKey);
    const bob = await h.human(bobKey);
    const a = (await h.create(alice.token, { title: 'a' })).session;
    const b = (await h.create(bob.token, { title: 'b' })).session;
    const t0 = clock.now().toISOString();
    await h.request('DELETE', `/api/v1/sessions/${a.id}`, { token: alice.token });
    await h.request('DELETE', `/api/v1/sessions/${b.id}`, { token: bob.token });
    const list = async (qs: Record<string, string>) => {
      const res = await h.request('GET', `/api/v1/session_deletions?${new URLSearchParams(qs)}`, { token: h.fleetKey });
      return res;
    };
    const uids = (res: { body: { deletions: { session_uid: string }[] } }) =>
      res.body.deletions.map((d) => d.session_uid).filter((u) => u === a.uid || u === b.uid);
    expect(uids(await list({ actor: aliceKey }))).toEqual([a.uid]);
    expect(uids(await list({ actor: `human:${bobKey}` }))).toEqual([b.uid]);
    expect(uids(await list({ session_uid: b.uid.toUpperCase() }))).toEqual([b.uid]);
    expect(uids(await list({ since: t0 }))).toEqual([b.uid, a.uid]);
    expect(uids(await list({ until: t0 }))).toEqual([]);
    expect((await list({ actor: 'nobody-by-this-key' })).body.deletions).toEqual([]);
    expect((await list({ actor: 'fleet' })).body.deletions.map((d: { session_uid: string }) => d.session_uid)).not.toContain(a.uid);
    const bad = await list({ actor: 'session:abc' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid-request', field: 'actor' });
    expect((await list({ since: 'yesterday' })).body).toMatchObject({ error: 'invalid-request', field: 'since' });
    const md = await h.request('GET', `/api/v1/session_deletions?session_uid=${a.uid}&format=markdown`, { token: h.fleetKey });
    expect(md.text).toContain(`#${a.id} a (uid ${a.uid})`);
    expect(md.text).toContain(`by ${aliceKey}`);
  });
});

describeEachDialect(
  'deletion records are filtered by visibility (docs/design/sessions.md multi-user scoping)',
  (t) => {
    it('a human sees deletions of their own and unowned sessions; admins and the fleet see all', async () => {
      const h = t();
      const alice = await h.human(uniqueKey('vic'));
      const bob = await h.human(uniqueKey('wes'));
      const admin = await h.human(uniqueKey('xan'), { admin: true });
      const a = (await h.create(alice.token, { title: 'alices' })).session;
      const unowned = (await h.create(h.fleetKey, { title: 'nobodys' })).session;
      await h.request('DELETE', `/api/v1/sessions/${a.id}`, { token: alice.token });
      await h.request('DELETE', `/api/v1/sessions/${unowned.id}`, { token: admin.token });
      const seen = async (token: string) =>
        ((await h.request('GET', '/api/v1/session_deletions?limit=200', { token })).body.deletions as { session_uid: string }[])
          .map((d) => d.session_uid)
          .filter((u) => u === a.uid || u === unowned.uid)
          .sort();
      const both = [a.uid, unowned.uid].sort();
      expect(await seen(alice.token)).toEqual(both);
      expect(await seen(bob.token)).toEqual([unowned.uid]);
      expect(await seen(admin.token)).toEqual(both);
      expect(await seen(h.fleetKey)).toEqual(both);
      // bob cannot delete alice's sessions: they do not exist for him
      const other = (await h.create(alice.token, { title: 'still alices' })).session;
      expect((await h.request('DELETE', `/api/v1/sessions/${other.id}`, { token: bob.token })).status).toBe(404);
    });
  },
  { mode: 'multi-user' },
);
