import { beforeAll, expect, it } from 'vitest';
import { causedSessionIds, type CausationFacts } from '../../src/core/causation.js';
import { describeEachDialect, type Harness } from '../helpers/harness.js';
import { causationWorld, type CausationWorld } from '../helpers/causation-fixture.js';

/** The reverse question (docs/attribution.md "What a person caused"): REST, both dialects. */

async function allPages<T>(h: Harness, token: string, path: string, key: string, limit: number): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const r: { status: number; text: string; body: any } = await h.request(
      'GET',
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { token },
    );
    expect(r.status, r.text).toBe(200);
    out.push(...(r.body[key] as T[]));
    cursor = r.body.next_cursor;
    if (cursor === null) return out;
  }
  throw new Error('paging never ended');
}

/** The facts core/causation.ts reads, straight from the tables. */
async function facts(h: Harness): Promise<CausationFacts[]> {
  const sessions = await h.store.kysely.selectFrom('sessions').select(['id', 'cause_actor_id', 'creator_actor_id']).execute();
  const actors = await h.store.kysely.selectFrom('actors').select(['id', 'kind', 'ref']).where('kind', '=', 'session').execute();
  const sessionOfActor = new Map(actors.map((a) => [Number(a.id), Number(a.ref)]));
  return sessions.map((s) => ({
    id: Number(s.id),
    causeActorId: s.cause_actor_id === null ? null : Number(s.cause_actor_id),
    creatorActorId: s.creator_actor_id === null ? null : Number(s.creator_actor_id),
    creatorSessionId: s.creator_actor_id === null ? null : (sessionOfActor.get(Number(s.creator_actor_id)) ?? null),
  }));
}

async function humanActorId(h: Harness, key: string): Promise<number> {
  const user = await h.store.kysely.selectFrom('users').select('id').where('key', '=', key).executeTakeFirstOrThrow();
  const actor = await h.store.kysely.selectFrom('actors').select('id').where('kind', '=', 'human').where('ref', '=', String(user.id)).executeTakeFirstOrThrow();
  return Number(actor.id);
}

describeEachDialect('the reverse question over REST', (t) => {
  let w: CausationWorld;
  beforeAll(async () => {
    w = await causationWorld(t());
  });

  it("caused_by=<human> returns exactly the sessions alice caused — the dispatched ones on carol's tree included, the decoys not", async () => {
    const h = t();
    const listed = await allPages<{ id: number }>(h, h.fleetKey, `/api/v1/sessions?caused_by=${w.alice.key}`, 'sessions', 2);
    const ids = listed.map((s) => s.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(w.alices);
    // newest first, each exactly once
    expect(ids).toEqual([...w.alices].sort((a, b) => b - a));
    for (const other of w.others) expect(ids).not.toContain(other);
    // the query and the one definition agree, over every session of the store
    expect([...causedSessionIds(await humanActorId(h, w.alice.key), await facts(h))].sort((a, b) => a - b)).toEqual(w.alices);
    // human:<key> is the same filter; the decoy human's own list holds their tree only
    const spelled = await h.request('GET', `/api/v1/sessions?caused_by=human:${w.alice.key}`, { token: h.fleetKey });
    expect(spelled.body.sessions.map((s: { id: number }) => s.id).sort((a: number, b: number) => a - b)).toEqual(w.alices);
    const bobs = await h.request('GET', `/api/v1/sessions?caused_by=${w.bob.key}`, { token: h.fleetKey });
    expect(bobs.body.sessions).toHaveLength(2);
    for (const s of bobs.body.sessions) expect(w.alices).not.toContain(s.id);
  });

  it('combines with the other filters, and a filter naming nobody matches nothing', async () => {
    const h = t();
    const roots = await h.request('GET', `/api/v1/sessions?caused_by=${w.alice.key}&root=true`, { token: h.fleetKey });
    expect(roots.body.sessions.map((s: { id: number }) => s.id)).toEqual([w.dispatchedChild, w.router.id]);
    const nobody = await h.request('GET', '/api/v1/sessions?caused_by=nobody-here', { token: h.fleetKey });
    expect(nobody.status).toBe(200);
    expect(nobody.body).toEqual({ sessions: [], next_cursor: null });
    const bad = await h.request('GET', '/api/v1/sessions?caused_by=session:abc', { token: h.fleetKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid-request');
  });

  it('events by cause find the work queued on another tree; events by actor what the router itself did', async () => {
    const h = t();
    const caused = await allPages<{ id: number; session_id: number; type: string; details: Record<string, unknown>; cause: { ref: string } }>(
      h,
      h.fleetKey,
      `/api/v1/events?cause=${w.alice.key}`,
      'events',
      3,
    );
    const queued = caused.find((e) => e.type === 'inbox_item_added' && e.details.inbox_item_id === w.queuedOnCarol);
    expect(queued?.session_id).toBe(w.carolsRoot.id);
    for (const e of caused) expect(e.cause.ref).toBe(w.alice.key);
    // every event of every session alice caused has her as its cause, and nothing of bob's tree does
    expect(new Set(caused.map((e) => e.session_id))).toEqual(new Set([...w.alices, w.carolsRoot.id]));
    const byRouter = await allPages<{ actor: { kind: string; ref: string } }>(h, h.fleetKey, `/api/v1/events?actor=session:${w.router.id}`, 'events', 2);
    expect(byRouter.length).toBeGreaterThan(0);
    for (const e of byRouter) expect(e.actor).toMatchObject({ kind: 'session', ref: String(w.router.id) });
  });

  it('events by credential list every act of one human token, exactly once across pages; a refused act leaves nothing', async () => {
    const h = t();
    const created = await h.request('GET', `/api/v1/sessions/${w.router.id}/events`, { token: h.fleetKey });
    const credential = created.body.events.find((e: { type: string }) => e.type === 'created').credential_id as number;
    expect(credential).toBeGreaterThan(0);
    // more acts with alice's token: a rename, an enqueue, a second session archived
    expect((await h.request('PATCH', `/api/v1/sessions/${w.router.id}`, { token: w.alice.token, body: { title: 'alice router, renamed' } })).status).toBe(200);
    expect(
      (await h.request('POST', `/api/v1/sessions/${w.router.id}/enqueued_messages`, { token: w.alice.token, body: { content: 'next, the changelog' } })).status,
    ).toBe(201);
    const spare = (await h.create(w.alice.token, { title: 'spare' })).session.id as number;
    expect((await h.request('POST', `/api/v1/sessions/${spare}/archive`, { token: w.alice.token, body: {} })).status).toBe(200);
    const before = await h.store.kysely.selectFrom('session_events').select('id').where('credential_id', '=', credential).execute();
    // a refused act (humans send no runtime reports) records nothing to find
    const refused = await h.request('POST', `/api/v1/sessions/${w.router.id}/runtime`, { token: w.alice.token, body: { state: 'idle' } });
    expect(refused.status).toBeGreaterThanOrEqual(400);

    const listed = await allPages<{ id: number; type: string; credential_id: number }>(h, h.fleetKey, `/api/v1/events?credential=${credential}`, 'events', 2);
    const ids = listed.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(before.map((r) => Number(r.id)).sort((a, b) => a - b));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    for (const e of listed) expect(e.credential_id).toBe(credential);
    for (const type of ['created', 'attached', 'title_changed', 'inbox_item_added', 'archived'])
      expect(
        listed.map((e) => e.type),
        type,
      ).toContain(type);
    // filters combine: the same credential's acts on one cause only
    const both = await h.request('GET', `/api/v1/events?credential=${credential}&actor=${w.alice.key}&limit=200`, { token: h.fleetKey });
    expect(both.body.events.length).toBe(listed.length);
    const none = await h.request('GET', `/api/v1/events?credential=${credential}&actor=${w.bob.key}`, { token: h.fleetKey });
    expect(none.body.events).toEqual([]);
    const md = await h.request('GET', `/api/v1/events?credential=${credential}&format=markdown&limit=2`, { token: h.fleetKey });
    expect(md.text).toContain(`## Events — credential ${credential} (newest first)`);
    expect(md.text).toContain('More: pass --cursor ');
  });

  it('with no filter lists every event newest first; a cursor of another list is refused', async () => {
    const h = t();
    const all = await h.request('GET', '/api/v1/events?limit=5', { token: h.fleetKey });
    expect(all.status).toBe(200);
    const newest = await h.store.kysely.selectFrom('session_events').select('id').orderBy('id', 'desc').limit(5).execute();
    expect(all.body.events.map((e: { id: number }) => e.id)).toEqual(newest.map((r) => Number(r.id)));
    const page = await h.request('GET', `/api/v1/sessions?limit=1`, { token: h.fleetKey });
    const wrong = await h.request('GET', `/api/v1/events?actor=${w.alice.key}&cursor=${page.body.next_cursor}`, { token: h.fleetKey });
    expect(wrong.status).toBe(400);
  });
});
