import { beforeAll, expect, it } from 'vitest';
import { SETTING_ADMIN_USER } from '../../src/app/bootstrap.js';
import { setSetting } from '../../src/store/settings-repo.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { SseReader } from '../helpers/sse.js';
import { WebClient, textOf } from '../helpers/web-client.js';

/** The session pages, their forms and fragments, and the web UI's live stream (docs/design/surfaces.md). */

async function stream(h: Harness, web: WebClient, headers: Record<string, string> = {}): Promise<SseReader> {
  const res = await h.service.app.request('http://localhost/ui/events', { headers: { host: 'localhost', cookie: web.cookieHeader(), ...headers } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  return new SseReader(res);
}

describeEachDialect('web UI session pages (single-admin mode)', (t) => {
  let web: WebClient;
  let adminKey = '';
  beforeAll(async () => {
    const h = t();
    adminKey = uniqueKey('admin');
    await h.human(adminKey, { admin: true });
    await setSetting(h.store.kysely, SETTING_ADMIN_USER, adminKey, new Date().toISOString());
    web = new WebClient(h);
    await web.signInWithLink();
  });
  it('the new-session form creates a web_ui session as the signed-in human, recording its web credential', async () => {
    const h = t();
    // the human messages the web forms recorded (docs/design/capture.md), read straight from the table
    const recorded = async () =>
      (await h.store.kysely.selectFrom('human_messages').select(['session_id', 'entry_point', 'content', 'author_key']).orderBy('id').execute()).map((m) => ({
        sessionId: Number(m.session_id),
        input: { entryPoint: m.entry_point, content: m.content },
        author: m.author_key,
      }));
    const before = (await recorded()).length;
    const seenNow = async () => (await recorded()).slice(before);
    const r = await web.post('/sessions', { prompt: 'Find why the deploy flakes\nwith details', agent_root: 'router', model: 'opus' });
    expect(r.status).toBe(303);
    const id = Number(/^\/sessions\/(\d+)$/.exec(r.location!)![1]);
    const s = (await h.request('GET', `/api/v1/sessions/${id}`, { token: h.fleetKey })).body.session;
    expect(s).toMatchObject({
      title: 'Find why the deploy flakes',
      genesis: 'web_ui',
      scheduling_class: 'priority',
      owner: adminKey,
      agent_root: 'router',
      model: 'opus',
      creator: { kind: 'human', ref: adminKey },
      creator_basis: 'authenticated',
    });
    const created = (await h.request('GET', `/api/v1/sessions/${id}/events`, { token: h.fleetKey })).body.events[0];
    const web_credential = await h.store.kysely.selectFrom('web_sessions').select('credential_id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(created).toMatchObject({
      type: 'created',
      credential_id: Number(web_credential.credential_id),
      actor: { kind: 'human', ref: adminKey, basis: 'authenticated' },
    });
    expect(created.details.via).toBe('web_ui');
    expect(await seenNow()).toEqual([
      { sessionId: id, input: { entryPoint: 'web_ui.new_session', content: 'Find why the deploy flakes\nwith details' }, author: adminKey },
    ]);

    const quick = await web.post('/sessions/quick', { prompt: '  Summarize the incidents  ' });
    const quickId = Number(/(\d+)$/.exec(quick.location!)![1]);
    expect((await h.request('GET', `/api/v1/sessions/${quickId}`, { token: h.fleetKey })).body.session).toMatchObject({
      agent_root: 'router',
      genesis: 'web_ui',
      title: 'Summarize the incidents',
    });
    expect((await seenNow())[1]!.input).toEqual({ entryPoint: 'web_ui.quick_prompt', content: '  Summarize the incidents  ' });
    const empty = await web.post('/sessions/quick', { prompt: '   ' });
    expect(empty.status).toBe(400);

    // a double submit of one rendered form replays the first create: one session, one record
    const form = await web.get('/sessions/new');
    const key = /name="idempotency_key" value="([^"]+)"/.exec(form.text)![1]!;
    const once = await web.post('/sessions', { prompt: 'only once please', idempotency_key: key });
    const twice = await web.post('/sessions', { prompt: 'only once please', idempotency_key: key });
    expect(twice.location).toBe(once.location);
    expect((await seenNow()).filter((x) => x.input.content === 'only once please')).toHaveLength(1);
  });

  it('a parent that does not resolve never fails the create, and the page says why', async () => {
    const h = t();
    const parent = (await h.create(h.fleetKey, { title: 'a real parent' })).session;
    const withParent = await web.post('/sessions', { title: 'child from the web', parent: `#${parent.id}` });
    const childId = Number(/\/sessions\/(\d+)$/.exec(withParent.location!)![1]);
    expect((await h.request('GET', `/api/v1/sessions/${childId}`, { token: h.fleetKey })).body.session).toMatchObject({
      parent_session_id: parent.id,
      parent_basis: 'declared',
    });
    const dropped = await web.post('/sessions', { title: 'orphan from the web', parent: '#999999' });
    expect(dropped.location).toMatch(/\?parent_dropped=not-found&requested=%23999999$/);
    const page = await web.get(dropped.location!);
    expect(textOf(page.text)).toContain('Created without a parent: “#999999” was not used because no session has that id or uid.');
  });

  it('the session page shows status, ids, bases and a skeleton with exactly the rows the panel draws', async () => {
    const h = t();
    const parent = (await h.create(h.fleetKey, { title: 'panel parent', agent_root: 'router' })).session;
    const me = (await h.create(h.fleetKey, { title: 'panel me', parent_session_id: parent.id })).session;
    for (let i = 0; i < 12; i++) await h.create(h.fleetKey, { title: `panel child ${i}`, parent_session_id: me.id });
    const page = await web.get(`/sessions/${me.id}`);
    expect(page.status).toBe(200);
    const text = textOf(page.text);
    expect(text).toContain('panel me');
    expect(text).toContain(me.uid);
    expect(text).toContain('api · priority');
    expect(page.text).toContain(`href="/sessions/${parent.id}"`);
    expect(text).toMatch(/Parent #\d+ declared/);
    const skeleton = /<section class="card panel panel-skeleton"[\s\S]*?<\/section>/.exec(page.text)![0];
    expect(skeleton).not.toMatch(/ id="/);
    expect(skeleton).toContain(`hx-get="/sessions/${me.id}/provenance_panel"`);
    const skeletonRows = skeleton.match(/<li class="node skeleton">/g)!.length;
    const panel = await web.get(`/sessions/${me.id}/provenance_panel`);
    expect(panel.text).toMatch(/^<section id="provenance-panel"/);
    const panelRows = panel.text.match(/<li class="node /g)!.length;
    // the whole hierarchy: parent, itself and its 12 children — the skeleton counted the same
    expect(panelRows).toBe(14);
    expect(skeletonRows).toBe(panelRows);
    // live refresh: the page's stream keeps this panel live, and the panel takes its pushed HTML
    expect(page.text).toContain(`sse-connect="/ui/events?panel=${me.id}"`);
    expect(panel.text).toContain(`sse-swap="panel-${me.id}"`);
    // the current session is marked and not linked; its parent is linked
    expect(panel.text).toMatch(
      new RegExp(`data-node-id="${me.id}" data-render-parent="${parent.id}" aria-current="page"><span class="node-title">panel me</span>`),
    );
    expect(panel.text).toMatch(new RegExp(`<a class="node-title" href="/sessions/${parent.id}">panel parent</a>`));
    // the human-message half is there, with both counts and the empty state
    expect(textOf(panel.text)).toContain('0 in this session · 0 elsewhere in the hierarchy');
    expect(panel.text).toMatch(/class="empty-state" data-absence="(affirmative|cannot-say)"/);
  });

  it('lifecycle actions and delete go through the forms and are attributed to the web credential', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'act on me' })).session;
    const stop = await web.post(`/sessions/${s.id}/stop`, {}, { htmx: true });
    expect(stop.text).toContain(`#${s.id} is now stopped.`);
    const again = await web.post(`/sessions/${s.id}/stop`, {}, { htmx: true });
    expect(again.text).toContain('No change');
    const resume = await web.post(`/sessions/${s.id}/resume`, {});
    expect(resume.status).toBe(303);
    expect(resume.location).toBe(`/sessions/${s.id}`);
    const wrong = await web.post(`/sessions/${s.id}/unarchive`, {}, { htmx: true });
    expect(wrong.text).toContain('No change');
    const confirm = await web.get(`/sessions/${s.id}/delete`);
    expect(textOf(confirm.text)).toContain(`Delete session #${s.id}?`);
    const del = await web.post(`/sessions/${s.id}/delete`, {});
    expect(del.location).toBe(`/?deleted=${s.id}`);
    expect(textOf((await web.get(del.location!)).text)).toContain(`Session #${s.id} was deleted.`);
    const deletion = (await h.request('GET', '/api/v1/session_deletions', { token: h.fleetKey })).body.deletions.find(
      (d: { session_id: number }) => d.session_id === s.id,
    );
    expect(deletion).toMatchObject({ via: 'web_ui', actor: { kind: 'human', ref: adminKey, basis: 'authenticated' } });
    expect((await web.get(`/sessions/${s.id}`)).status).toBe(404);
  });

  it('the list filters by status, owner, text and parent, and shows "spawned by #N"', async () => {
    const h = t();
    const tag = uniqueKey('flt');
    const parent = (await h.create(h.fleetKey, { title: `${tag} parent` })).session;
    const child = (await h.create(h.fleetKey, { title: `${tag} child`, parent_session_id: parent.id })).session;
    const gone = (await h.create(h.fleetKey, { title: `${tag} archived` })).session;
    await h.request('POST', `/api/v1/sessions/${gone.id}/archive`, { token: h.fleetKey, body: {} });
    const open = await web.get(`/ui/sessions?q=${tag}`);
    expect(open.text).toContain(`data-session-row="${child.id}"`);
    expect(open.text).not.toContain(`data-session-row="${gone.id}"`); // archived: not open
    const all = await web.get(`/ui/sessions?q=${tag}&status=all`);
    expect(all.text).toContain(`data-session-row="${gone.id}"`);
    expect(textOf(all.text)).toContain(`spawned by #${parent.id}`);
    const children = await web.get(`/ui/sessions?status=all&parent=${parent.id}`);
    expect(children.text).toContain(`data-session-row="${child.id}"`);
    expect(children.text).not.toContain(`data-session-row="${parent.id}"`);
    const unowned = await web.get(`/ui/sessions?q=${tag}&status=all&owner=none`);
    expect(unowned.text).toContain(`data-session-row="${child.id}"`);
    const mine = await web.get(`/ui/sessions?q=${tag}&status=all&owner=${adminKey}`);
    expect(mine.text).toContain('No sessions match');
    // ended sessions are listed below the open ones, under their own heading, never among them
    const stopped = (await h.create(h.fleetKey, { title: `${tag} stopped` })).session;
    await h.request('POST', `/api/v1/sessions/${stopped.id}/stop`, { token: h.fleetKey, body: {} });
    const split = (await web.get(`/ui/sessions?q=${tag}&status=all`)).text;
    const endedAt = split.indexOf('aria-labelledby="ended-heading"');
    expect(endedAt).toBeGreaterThan(-1);
    expect(split.indexOf(`data-session-row="${stopped.id}"`)).toBeGreaterThan(endedAt);
    expect(split.indexOf(`data-session-row="${gone.id}"`)).toBeGreaterThan(endedAt);
    expect(split.indexOf(`data-session-row="${child.id}"`)).toBeLessThan(endedAt);
    expect((await web.get(`/ui/sessions?q=${tag}`)).text).toContain(`data-session-row="${stopped.id}"`);
    // the strip's "Open sessions" holds only sessions whose work goes on
    const strip = (await web.get('/ui/strip')).text;
    expect(strip).toContain(`${tag} child`);
    expect(strip).not.toContain(`${tag} stopped`);
    const bad = await web.get('/ui/sessions?status=sleeping', { htmx: true });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('invalid-request');
  });

  it('the web stream is cookie-authenticated, delivers session events, and replays from Last-Event-ID', async () => {
    const h = t();
    expect((await h.service.app.request('http://localhost/ui/events', { headers: { host: 'localhost' } })).status).toBe(303);
    const live = await stream(h, web);
    await live.next((e) => e.event === 'ready');
    const s = (await h.create(h.fleetKey, { title: 'streamed to the browser' })).session;
    const created = await live.next((e) => e.event === 'session_created' && JSON.parse(e.data).session.id === s.id);
    await live.close();
    await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token: h.fleetKey, body: { title: 'renamed while away' } });
    const again = await stream(h, web, { 'last-event-id': created.id! });
    const missed = await again.next((e) => e.event === 'session_updated');
    expect(JSON.parse(missed.data).session).toMatchObject({ id: s.id, title: 'renamed while away' });
    await again.close();
  });
});

describeEachDialect(
  'web UI live stream visibility (multi-user mode)',
  (t) => {
    it('a human’s web stream carries only sessions they may see', async () => {
      const h = t();
      const mine = uniqueKey('ivy');
      const theirs = await h.human(uniqueKey('jack'));
      await h.human(mine);
      const web = new WebClient(h);
      await web.signInWithLink(mine);
      const live = await stream(h, web);
      await live.next((e) => e.event === 'ready');
      const hidden = (await h.create(theirs.token, { title: 'jack only' })).session;
      const shared = (await h.create(h.fleetKey, { title: 'unowned, for everyone' })).session;
      const first = await live.next((e) => e.event === 'session_created');
      expect(JSON.parse(first.data).session.id).toBe(shared.id);
      expect(first.data).not.toContain('jack only');
      expect(hidden.id).toBeLessThan(shared.id);
      await live.close();
    });
  },
  { mode: 'multi-user' },
);
