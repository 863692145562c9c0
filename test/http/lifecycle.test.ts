import { expect, it } from 'vitest';
import { describeEachDialect, type Harness } from '../helpers/harness.js';

async function events(h: Harness, id: number): Promise<any[]> {
  const r = await h.request('GET', `/api/v1/sessions/${id}/events?limit=200`, { token: h.fleetKey });
  expect(r.status).toBe(200);
  return r.body.events;
}
const types = async (h: Harness, id: number) => (await events(h, id)).map((e) => e.type);

async function post(h: Harness, id: number, act: string, token = h.fleetKey, body: unknown = {}) {
  return h.request('POST', `/api/v1/sessions/${id}/${act}`, { token, body });
}
async function runtime(h: Harness, id: number, body: Record<string, unknown>, token = h.fleetKey) {
  return h.request('POST', `/api/v1/sessions/${id}/runtime`, { token, body });
}

describeEachDialect("the lifecycle table (docs/design/sessions.md), each row's event, and no-effect acts", (t) => {
  it('create → pending with `created`; attach: true → running with `attached` and `token_minted`', async () => {
    const h = t();
    const a = (await h.create(h.fleetKey, { title: 'a' })).session;
    expect(a.status).toBe('pending');
    expect(await types(h, a.id)).toEqual(['created']);
    const b = await h.create(h.fleetKey, { title: 'b', attach: true });
    expect(b.session.status).toBe('running');
    expect(b.session.activation).toBe(1);
    expect(b.session_token).toMatch(/^wrt_s_/);
    expect(await types(h, b.session.id)).toEqual(['created', 'attached', 'token_minted']);
    const minted = (await events(h, b.session.id))[2];
    expect(minted.details.recipient.credential_id).toBeTypeOf('number');
    expect(minted.details.activation).toBe(1);
  });

  it('the timeline pages by seq: next_cursor walks every event once, in order, and ends with null', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'paged', attach: true })).session;
    for (const state of ['idle', 'started', 'idle', 'started']) expect((await runtime(h, s.id, { state })).status).toBe(200);
    expect((await post(h, s.id, 'stop')).status).toBe(200);
    const all = await events(h, s.id);
    expect(all.length).toBeGreaterThanOrEqual(7);
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: { status: number; body: any } = await h.request(
        'GET',
        `/api/v1/sessions/${s.id}/events?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { token: h.fleetKey },
      );
      expect(r.status).toBe(200);
      expect(r.body.events.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.events);
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 50);
    expect(cursor).toBeNull();
    expect(pages).toBe(Math.ceil(all.length / 2));
    expect(seen.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
    // a malformed cursor is a clear 400, never a 500 or a silent first page
    const bad = await h.request('GET', `/api/v1/sessions/${s.id}/events?cursor=not-a-cursor`, { token: h.fleetKey });
    expect(bad.status).toBe(400);
  });

  it('attach from pending, stopped and failed; refused from running, idle and archived', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'attach' })).session;
    const first = await post(h, s.id, 'attach');
    expect(first.status).toBe(200);
    expect(first.body.session.status).toBe('running');
    expect(first.body.session_token).toMatch(/^wrt_s_/);
    const again = await post(h, s.id, 'attach');
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'invalid-transition', status: 'running' });
    await runtime(h, s.id, { state: 'idle' });
    expect((await post(h, s.id, 'attach')).body.error).toBe('invalid-transition');
    await runtime(h, s.id, { state: 'exited', code: 0 });
    const fromStopped = await post(h, s.id, 'attach');
    expect(fromStopped.body.session.activation).toBe(2);
    await runtime(h, s.id, { state: 'error', reason: 'boom' });
    expect((await post(h, s.id, 'attach')).body.session.activation).toBe(3);
    await runtime(h, s.id, { state: 'exited', code: 0 });
    await post(h, s.id, 'archive');
    expect((await post(h, s.id, 'attach')).body.error).toBe('invalid-transition');
  });

  it('resume: stopped and failed → pending with reason; pending is a no-effect act; others refused', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'resume', attach: true })).session;
    expect((await post(h, s.id, 'resume')).body.error).toBe('invalid-transition');
    await runtime(h, s.id, { state: 'exited', code: 0 });
    const r = await post(h, s.id, 'resume');
    expect(r.body).toMatchObject({ changed: true, session: { status: 'pending' } });
    const resumed = (await events(h, s.id)).at(-1);
    expect(resumed).toMatchObject({ type: 'resumed', details: { reason: 'resume', old: 'stopped', new: 'pending' } });
    const before = (await events(h, s.id)).length;
    const noop = await post(h, s.id, 'resume');
    expect(noop.body).toMatchObject({ changed: false, session: { status: 'pending' } });
    expect((await events(h, s.id)).length).toBe(before);
    const f = (await h.create(h.fleetKey, { title: 'failed', attach: true })).session;
    await runtime(h, f.id, { state: 'exited', code: 2 });
    expect((await post(h, f.id, 'resume')).body.session.status).toBe('pending');
  });

  it('runtime reports: idle, started, exited 0 → stopped, exited ≠ 0 → failed, error → failed; unattributed', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'rt', attach: true })).session;
    expect((await runtime(h, s.id, { state: 'idle' })).body.session.status).toBe('idle');
    expect((await runtime(h, s.id, { state: 'started' })).body.session.status).toBe('running');
    expect((await runtime(h, s.id, { state: 'exited', code: 0 })).body.session.status).toBe('stopped');
    const all = await events(h, s.id);
    const runtimeEvents = all.filter((e) => ['idle', 'started', 'exited', 'error'].includes(e.type));
    expect(runtimeEvents.map((e) => e.type)).toEqual(['idle', 'started', 'exited']);
    for (const e of runtimeEvents) {
      expect(e.actor).toBeNull();
      expect(e.cause).toBeNull();
    }
    expect(runtimeEvents[2].details.code).toBe(0);
    const f = (await h.create(h.fleetKey, { attach: true })).session;
    const failed = await runtime(h, f.id, { state: 'exited', code: 3 });
    expect(failed.body.session.status).toBe('failed');
    // a failed session with no title is named from its failure reason, by the system
    expect(failed.body.session.title).toBe('Failed: exited with code 3');
    const fe = await events(h, f.id);
    expect(fe.at(-2)).toMatchObject({ type: 'error', actor: null, details: { code: 3 } });
    expect(fe.at(-1)).toMatchObject({ type: 'title_generated', actor: { kind: 'system' } });
    const e = (await h.create(h.fleetKey, { title: 'err', attach: true })).session;
    expect((await runtime(h, e.id, { state: 'error', reason: 'could not start' })).body.session.status).toBe('failed');
  });

  it('runtime reports that do not fit the table are refused; repeats have no effect', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'rt2' })).session;
    const r = await runtime(h, s.id, { state: 'exited', code: 0 });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'invalid-transition', status: 'pending' });
    await post(h, s.id, 'attach');
    const n = (await events(h, s.id)).length;
    expect((await runtime(h, s.id, { state: 'started' })).body.changed).toBe(false);
    expect((await events(h, s.id)).length).toBe(n);
    const missing = await runtime(h, s.id, { state: 'exited' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'invalid-request', field: 'code' });
  });

  it('stop: pending → stopped; running work → stop_requested + a control item, status unchanged until exit', async () => {
    const h = t();
    const p = (await h.create(h.fleetKey, { title: 'p' })).session;
    expect((await post(h, p.id, 'stop')).body.session.status).toBe('stopped');
    expect((await events(h, p.id)).at(-1).type).toBe('stopped');
    const n = (await events(h, p.id)).length;
    expect((await post(h, p.id, 'stop')).body.changed).toBe(false);
    expect((await events(h, p.id)).length).toBe(n);

    const r = (await h.create(h.fleetKey, { title: 'r', attach: true })).session;
    const stop = await post(h, r.id, 'stop');
    expect(stop.body).toMatchObject({ changed: true, session: { status: 'running' } });
    const evs = await events(h, r.id);
    expect(evs.map((e) => e.type)).toContain('stop_requested');
    const control = await h.store.kysely.selectFrom('inbox_items').selectAll().where('session_id', '=', r.id).execute();
    expect(control).toHaveLength(1);
    expect(control[0]).toMatchObject({ kind: 'control', mode: 'interrupt' });
    // a second stop while the first is pending has no effect
    const count = evs.length;
    expect((await post(h, r.id, 'stop')).body.changed).toBe(false);
    expect((await events(h, r.id)).length).toBe(count);
    // the runtime exits (even non-zero, killed by the stop) → stopped
    const exit = await runtime(h, r.id, { state: 'exited', code: 143 });
    expect(exit.body.session.status).toBe('stopped');
    const tail = (await events(h, r.id)).slice(-2);
    expect(tail[0]).toMatchObject({ type: 'exited', details: { code: 143, after_stop_request: true } });
    // the stop ended with the runtime it was for: its control item is retired, not left for the next one
    expect(tail[1]).toMatchObject({ type: 'inbox_item_retired', details: { inbox_item_id: control[0]!.id, reason: 'runtime-exited' } });
    // failed sessions cannot be stopped
    const f = (await h.create(h.fleetKey, { attach: true, title: 'f' })).session;
    await runtime(h, f.id, { state: 'error' });
    expect((await post(h, f.id, 'stop')).body).toMatchObject({ error: 'invalid-transition', status: 'failed' });
  });

  it('archive and unarchive, with their no-effect cases', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'arch' })).session;
    expect((await post(h, s.id, 'archive')).body).toEqual({ archived: [s.id], skipped: [] });
    const n = (await events(h, s.id)).length;
    expect((await post(h, s.id, 'archive')).body).toEqual({ archived: [], skipped: [] });
    expect((await events(h, s.id)).length).toBe(n);
    const un = await post(h, s.id, 'unarchive');
    expect(un.body).toMatchObject({ changed: true, session: { status: 'stopped' } });
    expect((await events(h, s.id)).at(-1)).toMatchObject({ type: 'unarchived', details: { old: 'archived', new: 'stopped' } });
    const m = (await events(h, s.id)).length;
    expect((await post(h, s.id, 'unarchive')).body.changed).toBe(false);
    expect((await events(h, s.id)).length).toBe(m);
  });

  it('archive cascades bottom-up, skips active descendants and never archives a parent over an active child', async () => {
    const h = t();
    const root = (await h.create(h.fleetKey, { title: 'root' })).session;
    const a = (await h.create(h.fleetKey, { title: 'a', parent_session_id: root.id })).session;
    const a1 = (await h.create(h.fleetKey, { title: 'a1', parent_session_id: a.id, attach: true })).session;
    const b = (await h.create(h.fleetKey, { title: 'b', parent_session_id: root.id })).session;
    const b1 = (await h.create(h.fleetKey, { title: 'b1', parent_session_id: b.id })).session;
    const legacy = (await h.create(h.fleetKey, { title: 'legacy', custom_metadata: { router_session_id: String(b.id) } })).session;
    const r = await post(h, root.id, 'archive');
    expect(r.status).toBe(200);
    expect(r.body.archived).toEqual([b1.id, legacy.id, b.id]);
    expect(r.body.skipped).toEqual([
      { id: a1.id, reason: 'active' },
      { id: a.id, reason: 'active-descendant' },
      { id: root.id, reason: 'active-descendant' },
    ]);
    const cascaded = (await events(h, b1.id)).at(-1);
    expect(cascaded).toMatchObject({ type: 'archived', details: { cascade_from: root.id } });
    // once the active child exits, archiving the root archives the rest
    await runtime(h, a1.id, { state: 'exited', code: 0 });
    const again = await post(h, root.id, 'archive');
    expect(again.body).toEqual({ archived: [a1.id, a.id, root.id], skipped: [] });
  });

  it('archive with a declared acting session records it in the one archived event and writes no uncle edge', async () => {
    const h = t();
    const actor = (await h.create(h.fleetKey, { title: 'actor' })).session;
    const s = (await h.create(h.fleetKey, { title: 'target' })).session;
    await post(h, s.id, 'archive', h.fleetKey, { acting_session_id: actor.id });
    const archived = (await events(h, s.id)).filter((e) => e.type === 'archived');
    expect(archived).toHaveLength(1);
    expect(archived[0]).toMatchObject({ details: { acting_session_id: actor.id }, actor: { kind: 'session', ref: String(actor.id), basis: 'declared' } });
    const edges = await h.store.kysely.selectFrom('session_uncles').selectAll().where('session_id', '=', s.id).execute();
    expect(edges).toHaveLength(0);
  });

  it('PATCH records one event per field that really changed, and nothing for current values', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'patch me' })).session;
    const r = await h.request('PATCH', `/api/v1/sessions/${s.id}`, {
      token: h.fleetKey,
      body: { title: 'patched', starred: true, model: 'opus', messaging: 'reply-only' },
    });
    expect(r.status).toBe(200);
    expect(r.body.changed).toEqual(['title_changed', 'starred', 'model_changed', 'messaging_changed']);
    expect(r.body.session).toMatchObject({ title: 'patched', starred: true, model: 'opus', messaging: 'reply-only', slug: 'patch-me' });
    const evs = await events(h, s.id);
    expect(evs.find((e) => e.type === 'title_changed').details).toEqual({ old: 'patch me', new: 'patched' });
    expect(evs.find((e) => e.type === 'starred').details).toEqual({ old: false, new: true });
    const n = evs.length;
    const same = await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token: h.fleetKey, body: { title: 'patched', starred: true } });
    expect(same.body.changed).toEqual([]);
    expect((await events(h, s.id)).length).toBe(n);
    const un = await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token: h.fleetKey, body: { starred: false } });
    expect(un.body.changed).toEqual(['unstarred']);
  });

  it('the slug is derived from the first title applied and never follows renames', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, {})).session;
    expect(s.title).toBeNull();
    expect(s.slug).toBeNull();
    const first = await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token: h.fleetKey, body: { title: 'First Name' } });
    expect(first.body.session.slug).toBe('first-name');
    const second = await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token: h.fleetKey, body: { title: 'Second' } });
    expect(second.body.session.slug).toBe('first-name');
  });

  it("a title derived from the prompt is the system's, for the session's cause; the given title wins", async () => {
    const h = t();
    const s = await h.create(h.fleetKey, { prompt: 'Build the thing\nwith details', original_prompt: 'Please fix login\nit is broken' });
    expect(s.session.title).toBe('Please fix login');
    const evs = await events(h, s.session.id);
    expect(evs[1]).toMatchObject({ type: 'title_generated', actor: { kind: 'system' }, cause: { kind: 'fleet' }, details: { from: 'original_prompt' } });
    const given = await h.create(h.fleetKey, { title: 'Given', prompt: 'ignored' });
    expect(given.session.title).toBe('Given');
    expect(await types(h, given.session.id)).toEqual(['created']);
  });

  it('a replayed Idempotency-Key create returns the original response and records nothing', async () => {
    const h = t();
    const headers = { 'idempotency-key': `k-${Math.random()}` };
    const first = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'once', attach: true }, headers });
    expect(first.status).toBe(201);
    const n = (await events(h, first.body.session.id)).length;
    const replay = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'once', attach: true }, headers });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect((await events(h, first.body.session.id)).length).toBe(n);
    const count = await h.store.kysely
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('title', '=', 'once')
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    // the same key with another body is refused, naming the session
    const other = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'different' }, headers });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: 'idempotency-key-mismatch', session_id: first.body.session.id });
    // after a later attach, the replay says the token was superseded instead of returning it
    await runtime(h, first.body.session.id, { state: 'exited', code: 0 });
    await post(h, first.body.session.id, 'attach');
    const late = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'once', attach: true }, headers });
    expect(late.body.session_token).toBeUndefined();
    expect(late.body.session_token_superseded).toBe(true);
  });

  it('ids are never reused after a delete', async () => {
    const h = t();
    const { token } = await h.human(`del-${h.dialect}-${Date.now()}`, { admin: true });
    const a = (await h.create(token, { title: 'gone' })).session;
    expect((await h.request('DELETE', `/api/v1/sessions/${a.id}`, { token })).status).toBe(200);
    const b = (await h.create(token, { title: 'next' })).session;
    expect(b.id).toBeGreaterThan(a.id);
  });
});
