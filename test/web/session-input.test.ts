import { beforeAll, expect, it } from 'vitest';
import { SETTING_ADMIN_USER } from '../../src/app/bootstrap.js';
import { setSetting } from '../../src/store/settings-repo.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { WebClient, textOf } from '../helpers/web-client.js';

/** The web UI's human input forms: follow-up, enqueue, interrupt, the queue, the chat bubble (docs/design/surfaces.md, docs/design/capture.md). */

interface Recorded {
  id: number;
  session_id: number;
  entry_point: string;
  content: string;
  inbox_item_id: number | null;
  author: { key: string };
  withdrawn_at: string | null;
}

describeEachDialect('web UI human input forms', (t) => {
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

  /** The human messages recorded on a session, oldest first, as the REST provenance reports them. */
  async function recordedOn(h: Harness, id: number): Promise<Recorded[]> {
    const res = await h.request('GET', `/api/v1/sessions/${id}/provenance`, { token: h.fleetKey });
    expect(res.status).toBe(200);
    return (res.body.human_messages.entries as Recorded[]).filter((e) => e.session_id === id).reverse();
  }

  async function inbox(h: Harness, id: number): Promise<{ id: number; kind: string; mode: string; state: string; content: string }[]> {
    return (await h.request('GET', `/api/v1/sessions/${id}/inbox?state=pending,leased,delivered,withdrawn`, { token: h.fleetKey })).body.items;
  }

  it('follow-up, enqueue and interrupt each deliver once and record one human message with its entry point and the words', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'input target' })).session;
    const page = await web.get(`/sessions/${s.id}`);
    expect(page.status).toBe(200);
    for (const act of ['follow_up', 'enqueue', 'interrupt']) expect(page.text).toContain(`formaction="/sessions/${s.id}/${act}"`);

    // plain posts (no JS): 303 back to the page, which then says what happened
    const words = '  Please also check\nthe staging logs  ';
    const plain = await web.post(`/sessions/${s.id}/follow_up`, { content: words });
    expect(plain.status).toBe(303);
    expect(plain.location).toBe(`/sessions/${s.id}?input=follow_up#session-input`);
    expect(textOf((await web.get(plain.location!.replace(/#.*/, ''))).text)).toContain('Follow-up delivered as the next turn.');

    // htmx: the result in the status region, the card swapped out of band
    const queued = await web.post(`/sessions/${s.id}/enqueue`, { content: 'after you finish, summarize' }, { htmx: true });
    expect(queued.status).toBe(200);
    expect(queued.text).toContain('data-input-result="enqueue"');
    expect(queued.text).toContain('id="session-input" class="card"');
    expect(queued.text).toContain('hx-swap-oob="outerHTML"');
    const interrupt = await web.post(`/sessions/${s.id}/interrupt`, { content: 'stop, wrong branch' }, { htmx: true });
    expect(interrupt.text).toContain('data-input-result="interrupt"');

    const items = await inbox(h, s.id);
    expect(items.map((i) => [i.kind, i.mode, i.content])).toEqual([
      ['follow_up', 'next_turn', words],
      ['enqueued', 'when_idle', 'after you finish, summarize'],
      ['enqueued', 'interrupt', 'stop, wrong branch'],
    ]);
    const recorded = await recordedOn(h, s.id);
    expect(recorded.map((m) => [m.entry_point, m.content, m.inbox_item_id, m.author.key])).toEqual([
      ['web_ui.follow_up', words, items[0]!.id, adminKey],
      ['web_ui.enqueued_message', 'after you finish, summarize', items[1]!.id, adminKey],
      ['web_ui.interrupt', 'stop, wrong branch', items[2]!.id, adminKey],
    ]);
  });

  it('refusals carry the token, keep the typed text and record nothing; a post without the CSRF token is refused', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'refusal target' })).session;
    const empty = await web.post(`/sessions/${s.id}/follow_up`, { content: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('data-error="invalid-request"');

    const forged = await web.post(`/sessions/${s.id}/follow_up`, { content: 'forged words' }, { noCsrf: true });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('csrf-failed');
    const forgedHtmx = await web.post(`/sessions/${s.id}/enqueue`, { content: 'forged words' }, { htmx: true, noCsrf: true });
    expect(forgedHtmx.status).toBe(403);

    // docs/design/messages.md: nothing is delivered to an archived session (target-unavailable)
    expect((await h.request('POST', `/api/v1/sessions/${s.id}/archive`, { token: h.fleetKey, body: {} })).status).toBe(200);
    const typed = 'interrupt <b>now</b>, please';
    const refused = await web.post(`/sessions/${s.id}/interrupt`, { content: typed });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('data-error="target-unavailable"');
    expect(refused.text).toContain('interrupt &lt;b&gt;now&lt;/b&gt;, please</textarea>');
    const refusedHtmx = await web.post(`/sessions/${s.id}/follow_up`, { content: typed }, { htmx: true });
    expect(refusedHtmx.status).toBe(409);
    expect(refusedHtmx.text).toContain('data-error="target-unavailable"');
    // the htmx refusal swaps only into the status region: the card (and the typed text) stays
    expect(refusedHtmx.text).not.toContain('id="session-input"');
    expect((await web.get(`/sessions/${s.id}`)).text).toContain('is archived: nothing can be delivered to it');

    expect(await inbox(h, s.id)).toEqual([]);
    expect(await recordedOn(h, s.id)).toEqual([]);
  });

  it('a double submit of one rendered form delivers once and records once', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'double submit target' })).session;
    const page = await web.get(`/sessions/${s.id}`);
    const key = /id="session-input-form"[\s\S]*?name="idempotency_key" value="([^"]+)"/.exec(page.text)![1]!;
    const once = await web.post(`/sessions/${s.id}/follow_up`, { content: 'only once', idempotency_key: key });
    const twice = await web.post(`/sessions/${s.id}/follow_up`, { content: 'only once', idempotency_key: key }, { htmx: true });
    expect([once.status, twice.status]).toEqual([303, 200]);
    expect((await inbox(h, s.id)).map((i) => i.content)).toEqual(['only once']);
    expect((await recordedOn(h, s.id)).map((m) => m.content)).toEqual(['only once']);
    // the same key with other words is refused, and the words are kept
    const other = await web.post(`/sessions/${s.id}/follow_up`, { content: 'something else', idempotency_key: key });
    expect(other.status).toBe(409);
    expect(other.text).toContain('data-error="idempotency-key-mismatch"');
    expect(other.text).toContain('something else</textarea>');
    // each rendered form has its own key
    expect((await web.get(`/sessions/${s.id}`)).text).not.toContain(key);
    expect((await inbox(h, s.id)).length).toBe(1);
  });

  it('the queue lists pending enqueued messages; send now promotes one, withdraw keeps its record marked withdrawn', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'queue target' })).session;
    await web.post(`/sessions/${s.id}/enqueue`, { content: 'first in the queue' });
    await web.post(`/sessions/${s.id}/enqueue`, { content: 'second in the queue' });
    const [first, second] = await inbox(h, s.id);
    const page = await web.get(`/sessions/${s.id}`);
    const list = /<div id="enqueued-list"[\s\S]*?<\/ul>/.exec(page.text)![0];
    expect(textOf(list)).toContain('first in the queue');
    expect(list).toContain(`action="/sessions/${s.id}/enqueued/${first!.id}/send_now"`);
    expect(list).toContain(`action="/sessions/${s.id}/enqueued/${second!.id}/withdraw"`);
    expect(list).toMatch(/hx-confirm="Withdraw enqueued message #\d+\?/);

    const sent = await web.post(`/sessions/${s.id}/enqueued/${first!.id}/send_now`, {}, { htmx: true });
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('data-input-result="send_now"');
    // only the queue is swapped: a message being typed in the box stays
    expect(sent.text).toContain('<div id="enqueued-list"');
    expect(sent.text).not.toContain('id="session-input"');
    const withdrawn = await web.post(`/sessions/${s.id}/enqueued/${second!.id}/withdraw`);
    expect(withdrawn.status).toBe(303);
    expect(withdrawn.location).toBe(`/sessions/${s.id}?input=withdraw#session-input`);

    const items = await inbox(h, s.id);
    expect(items.map((i) => [i.id, i.mode, i.state])).toEqual([
      [first!.id, 'next_turn', 'pending'],
      [second!.id, 'when_idle', 'withdrawn'],
    ]);
    const recorded = await recordedOn(h, s.id);
    expect(recorded.map((m) => [m.content, m.entry_point, m.withdrawn_at !== null])).toEqual([
      ['first in the queue', 'web_ui.enqueued_message', false],
      ['second in the queue', 'web_ui.enqueued_message', true],
    ]);
    // the withdrawn one leaves the list; a second withdrawal is refused with the app's token
    const after = await web.get(`/sessions/${s.id}/enqueued`, { htmx: true });
    expect(after.text).not.toContain(`data-enqueued-id="${second!.id}"`);
    expect(after.text).toContain(`data-enqueued-id="${first!.id}"`);
    const again = await web.post(`/sessions/${s.id}/enqueued/${second!.id}/withdraw`, {}, { htmx: true });
    expect(again.status).toBe(409);
    expect(again.text).toContain('data-error="enqueued-message-not-pending"');
    const stranger = await web.post(`/sessions/${s.id}/enqueued/999999/send_now`, {}, { htmx: true });
    expect(stranger.status).toBe(404);
    expect(stranger.text).toContain('data-error="enqueued-message-not-found"');
  });

  it('an item written into the agent but never reported taken is listed as not delivered, with Resend; resend makes it pending', async () => {
    const h = t();
    const created = await h.create(h.fleetKey, { title: 'resend target', attach: true, delivery: 'runner' });
    const s = created.session;
    const token = created.session_token;
    const f = await h.request('POST', `/api/v1/sessions/${s.id}/follow_up`, { token: h.fleetKey, body: { content: 'typed into the agent, never taken' } });
    const id = f.body.inbox_item.id;
    await h.request('POST', `/api/v1/sessions/${s.id}/inbox/lease`, { token, body: {} });
    await h.request('POST', `/api/v1/sessions/${s.id}/inbox/written`, { token, body: { ids: [id] } });
    // not yet past the lease: nothing to resend
    expect((await web.get(`/sessions/${s.id}`)).text).not.toContain(`data-undelivered-id="${id}"`);
    const past = new Date(Date.now() - 1000).toISOString();
    await h.store.kysely.updateTable('inbox_items').set({ written_deadline: past }).where('id', '=', id).execute();
    const page = await web.get(`/sessions/${s.id}`);
    expect(page.text).toContain(`data-undelivered-id="${id}"`);
    expect(page.text).toContain(`action="/sessions/${s.id}/inbox/${id}/resend"`);
    expect(textOf(page.text)).toContain('Not delivered');

    const resent = await web.post(`/sessions/${s.id}/inbox/${id}/resend`, {}, { htmx: true });
    expect(resent.status).toBe(200);
    expect(resent.text).toContain('data-input-result="resend"');
    expect(resent.text).not.toContain(`data-undelivered-id="${id}"`);
    expect((await h.request('GET', `/api/v1/sessions/${s.id}/inbox?state=all`, { token: h.fleetKey })).body.items.find((i: any) => i.id === id).state).toBe(
      'pending',
    );
    const again = await web.post(`/sessions/${s.id}/inbox/${id}/resend`, {}, { htmx: true });
    expect(again.status).toBe(409);
    expect(again.text).toContain('data-error="inbox-item-not-undelivered"');
  });

  it('the chat bubble starts a router session: the page context is in its prompt, only the words are recorded', async () => {
    const h = t();
    const viewed = (await h.create(h.fleetKey, { title: 'the viewed session', agent_root: 'worker' })).session;
    for (const path of ['/', `/sessions/${viewed.id}`]) expect((await web.get(path)).text).toContain('data-chat-bubble');

    const words = 'Why did this one stall?';
    const r = await web.post('/sessions/chat', { words, page: `/sessions/${viewed.id}` });
    expect(r.status).toBe(303);
    const id = Number(/^\/sessions\/(\d+)$/.exec(r.location!)![1]);
    const s = (await h.request('GET', `/api/v1/sessions/${id}`, { token: h.fleetKey })).body.session;
    expect(s).toMatchObject({ agent_root: 'router', genesis: 'web_ui', owner: adminKey, title: words, parent_session_id: null });

    const prompt = await h.store.kysely
      .selectFrom('session_prompts')
      .select(['prompt', 'original_prompt'])
      .where('session_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(prompt.original_prompt).toBe(words);
    expect(prompt.prompt).toContain('[Page context, added by the Warrant web UI');
    expect(prompt.prompt).toContain(`session #${viewed.id} “the viewed session”`);
    expect(prompt.prompt!.endsWith(`\n${words}`)).toBe(true);

    const recorded = await recordedOn(h, id);
    expect(recorded.map((m) => [m.entry_point, m.content, m.author.key])).toEqual([['web_ui.chat_bubble', words, adminKey]]);
    expect(recorded[0]!.content).not.toContain('Page context');
    expect(await recordedOn(h, viewed.id)).toEqual([]);

    // without the page field (no JS), the same-site Referer names the page
    const viaReferer = await web.post('/sessions/chat', { words: 'from the home page' }, { htmx: true, headers: { referer: 'http://localhost/' } });
    expect(viaReferer.status).toBe(204);
    const homeId = Number(/(\d+)$/.exec(viaReferer.headers.get('hx-redirect')!)![1]);
    const homePrompt = await h.store.kysely.selectFrom('session_prompts').select('prompt').where('session_id', '=', homeId).executeTakeFirstOrThrow();
    expect(homePrompt.prompt).toContain('the sessions home page');

    // refusals keep the words; a forged post creates nothing
    const empty = await web.post('/sessions/chat', { words: '  ', page: '/' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('data-error="invalid-request"');
    const forged = await web.post('/sessions/chat', { words: 'forged bubble', page: '/' }, { noCsrf: true });
    expect(forged.status).toBe(403);
    expect((await h.request('GET', '/api/v1/sessions?status=&q=forged%20bubble', { token: h.fleetKey })).body.sessions).toEqual([]);
  });
});
