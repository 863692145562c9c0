import { beforeAll, expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { changeSetting } from '../../src/app/settings.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { eventsOf, insertSpawnChain, insertUncle, spawn, uncleRows } from '../helpers/lineage.js';
import { WebClient, textOf } from '../helpers/web-client.js';

/**
 * The session page's provenance panel (docs/design/surfaces.md "Session detail"): the hierarchy walk drawn with
 * its chips, pills and notes, the human-message record with counts, gaps and paging, and the
 * × that removes one uncle edge.
 */

function sessionFrom(location: string | null): number {
  return Number(/\/sessions\/(\d+)/.exec(location ?? '')![1]);
}

function row(panel: string, id: number): string {
  return new RegExp(`<li class="node[^"]*" data-node-id="${id}"[\\s\\S]*?</li>`).exec(panel)![0];
}

describeEachDialect('web UI provenance panel', (t) => {
  let web: WebClient;
  let adminKey = '';
  beforeAll(async () => {
    const h = t();
    adminKey = uniqueKey('panel');
    await h.human(adminKey, { admin: true, displayName: 'Pat Panel', notes: 'Prefers <b>short</b> answers' });
    // through the settings use case, so the capture-coverage log records when web capture began
    await changeSetting(h.ctx, systemCaller('cli'), 'admin_user', adminKey);
    web = new WebClient(h);
    await web.signInWithLink();
  });

  it('draws the walk: indentation by render parent, also-senior chips with their basis, the drawn-under pill', async () => {
    const h = t();
    const root = await spawn(h, null, { title: 'panel root', agent_root: 'router' });
    const a = await spawn(h, root, { title: 'branch a' });
    const b = await spawn(h, root, { title: 'branch b' });
    const leaf = await spawn(h, b, { title: 'the leaf' });
    await insertUncle(h, a, leaf, 'declared');
    const panel = (await web.get(`/sessions/${leaf}/provenance_panel`)).text;
    expect(panel).toMatch(/^<section id="provenance-panel"/);
    expect(row(panel, root)).toContain('class="node depth-0"');
    expect(row(panel, root)).toContain('<span class="pill">router</span>');
    expect(row(panel, a)).toContain('class="node depth-1"');
    const leafRow = row(panel, leaf);
    // drawn once, under its spawn parent b; the chip names the other senior, marked declared, with a × that confirms first
    expect(panel.match(new RegExp(`data-node-id="${leaf}"`, 'g'))).toHaveLength(1);
    expect(leafRow).toContain(`class="node depth-2 current" data-node-id="${leaf}" data-render-parent="${b}" aria-current="page"`);
    expect(leafRow).toContain(`data-uncle-id="${a}"`);
    expect(textOf(leafRow)).toContain(`also senior #${a} · declared`);
    expect(leafRow).toContain(`hx-confirm="Remove #${a} as a senior of #${leaf}?`);
    expect(leafRow).not.toContain(`href="/sessions/${leaf}"`);
    expect(leafRow).not.toContain('drawn-under');
    // the edge it hangs on says its basis in words: a fleet key's parent is its claim
    const leafBasis = (await h.request('GET', `/api/v1/sessions/${leaf}`, { token: h.fleetKey })).body.session.parent_basis;
    expect(leafBasis).toBe('declared');
    expect(leafRow).toContain('data-edge-basis="declared"');
    expect(textOf(leafRow)).toContain(`declared a child of #${b} by a fleet caller; nothing verified it`);
    expect(row(panel, root)).not.toContain('edge-basis');

    // a session spawned outside this tree but adopted by a as uncle is drawn under a, and says so
    const elsewhere = await spawn(h, null, { title: 'another root' });
    const adopted = await spawn(h, elsewhere, { title: 'adopted' });
    await insertUncle(h, a, adopted);
    const fromA = (await web.get(`/sessions/${a}/provenance_panel`)).text;
    expect(fromA).not.toContain(`data-node-id="${elsewhere}"`);
    const adoptedRow = row(fromA, adopted);
    expect(adoptedRow).toContain(`data-render-parent="${a}"`);
    expect(adoptedRow).toMatch(/class="pill drawn-under"/);
    expect(textOf(adoptedRow)).toContain(`shown under uncle #${a}; its spawn parent is not in this tree`);
    expect(adoptedRow).toContain('data-edge-basis="uncle"');
    expect(textOf(adoptedRow)).toContain(`a junior of #${a} by an uncle edge, proved with a credential`);
  });

  it('the × removes exactly that edge, logs it on both timelines and repaints the panel; without JS it confirms on a page first', async () => {
    const h = t();
    const root = await spawn(h, null, { title: 'uncle root' });
    const uncle = await spawn(h, root, { title: 'the uncle' });
    const junior = await spawn(h, root, { title: 'the junior' });
    await insertUncle(h, uncle, junior);
    const before = (await web.get(`/sessions/${root}/provenance_panel`)).text;
    expect(row(before, junior)).toContain(`data-uncle-id="${uncle}"`);

    // no JS: the chip's form GETs a confirm page, whose form posts
    const confirm = await web.get(`/sessions/${junior}/uncles/${uncle}/remove?view=${root}`);
    expect(confirm.status).toBe(200);
    expect(textOf(confirm.text)).toContain(`Remove #${uncle} as a senior of #${junior}?`);
    expect(await uncleRows(h, [junior])).toHaveLength(1);
    const noCsrf = await web.post(`/sessions/${junior}/uncles/${uncle}/remove`, { view: String(root) }, { noCsrf: true });
    expect(noCsrf.status).toBe(403);
    expect(await uncleRows(h, [junior])).toHaveLength(1);

    // htmx: the new panel of the viewed session comes back, with the result out of band
    const removed = await web.post(`/sessions/${junior}/uncles/${uncle}/remove`, { view: String(root) }, { htmx: true });
    expect(removed.status).toBe(200);
    expect(removed.text).toMatch(/^<section id="provenance-panel"/);
    expect(row(removed.text, junior)).not.toContain('data-uncle-id');
    expect(removed.text).toContain(`data-node-id="${root}" data-render-parent="" aria-current="page"`);
    expect(textOf(removed.text)).toContain(`Removed #${uncle} as a senior of #${junior}.`);
    expect(await uncleRows(h, [junior])).toEqual([]);
    const onJunior = await eventsOf(h, junior, 'uncle_removed');
    expect(onJunior).toHaveLength(1);
    expect(onJunior[0].actor).toMatchObject({ kind: 'human', ref: adminKey, basis: 'authenticated' });
    expect(await eventsOf(h, uncle, 'uncle_removed')).toHaveLength(1);

    // a second × on the same (now gone) edge: the refusal goes above the tree, nothing changes
    const again = await web.post(`/sessions/${junior}/uncles/${uncle}/remove`, { view: String(root) }, { htmx: true });
    expect(again.status).toBe(404);
    expect(again.headers.get('hx-retarget')).toBe('#panel-result');
    expect(again.text).toContain('data-error="uncle-link-not-found"');
    // no JS: the removal redirects back to the page it was made from
    await insertUncle(h, uncle, junior);
    const plain = await web.post(`/sessions/${junior}/uncles/${uncle}/remove`, { view: String(root) });
    expect(plain.status).toBe(303);
    expect(plain.location).toBe(`/sessions/${root}`);
    expect(await uncleRows(h, [junior])).toEqual([]);
  });

  it('says when a node has seniors outside the drawn tree', async () => {
    const h = t();
    const mine = await spawn(h, null, { title: 'my root' });
    const child = await spawn(h, mine, { title: 'my child' });
    const far = await spawn(h, null, { title: 'far away root' });
    const farChild = await spawn(h, far, { title: 'far child' });
    // the child has a senior that the walk from `far` reaches, but the walk from `mine` does not draw
    await insertUncle(h, farChild, child);
    const panel = (await web.get(`/sessions/${mine}/provenance_panel`)).text;
    expect(panel).not.toContain(`data-node-id="${farChild}"`);
    const text = textOf(row(panel, child));
    expect(text).toContain('1 more senior not shown — see the API');
    expect(text).toContain(`GET /api/v1/sessions/${child}/hierarchy`);
    expect(row(panel, child)).not.toContain('data-uncle-id');
  });

  it('a tree cut by its bounds carries the truncation note and floors the counts', async () => {
    const h = t();
    const chain = await insertSpawnChain(h, 12);
    const panel = (await web.get(`/sessions/${chain[11]}/provenance_panel`)).text;
    expect(panel).toContain('data-truncated="true"');
    expect(textOf(panel)).toContain('Showing at most 150 sessions, 8 levels from the highest ancestor reached. This tree is larger.');
    expect(textOf(panel)).toContain('at least 0 in this session · at least 0 elsewhere in the hierarchy');
    expect(panel).toContain('data-absence="cannot-say"');
    const whole = (await web.get(`/sessions/${chain[0]}/provenance_panel`)).text;
    expect(whole).toContain('data-truncated="true"');
  });

  it('lists human messages here and elsewhere, as text, newest first, with counts, People notes and older pages', async () => {
    t();
    const rootRes = await web.post('/sessions', { prompt: 'Root ask <img src=x onerror=alert(1)>', title: 'human root' });
    const root = sessionFrom(rootRes.location);
    const child = sessionFrom((await web.post('/sessions', { prompt: 'child ask', parent: `#${root}` })).location);
    for (let i = 0; i < 21; i++) await web.post('/sessions', { prompt: `more ask ${i}`, parent: `#${child}` });
    const panel = (await web.get(`/sessions/${root}/provenance_panel`)).text;
    expect(panel).toContain('data-here="1" data-elsewhere="22"');
    expect(textOf(panel)).toContain('1 in this session · 22 elsewhere in the hierarchy');
    // newest first; the first page holds 20 and a button loads the rest
    const ids = [...panel.matchAll(/data-human-message-id="(\d+)"/g)].map((m) => Number(m[1]));
    expect(ids).toHaveLength(20);
    expect([...ids].sort((x, y) => y - x)).toEqual(ids);
    expect(panel).toMatch(/data-scope="elsewhere" data-entry-point="web_ui.new_session"/);
    const older = /hx-get="(\/sessions\/\d+\/human_messages\?cursor=[^"]+)"/.exec(panel)![1]!.replace(/&amp;/g, '&');
    const next = (await web.get(older, { htmx: true })).text;
    const olderIds = [...next.matchAll(/data-human-message-id="(\d+)"/g)].map((m) => Number(m[1]));
    expect(olderIds).toHaveLength(3);
    expect(Math.max(...olderIds)).toBeLessThan(Math.min(...ids));
    expect(next).toMatch(new RegExp(`data-scope="here"[\\s\\S]*Root ask`));
    expect(next).not.toContain('Older human messages');
    // the root's own words are the oldest: escaped, never markup
    expect(next).toContain('Root ask &lt;img src=x onerror=alert(1)&gt;');
    expect(next).not.toContain('<img src=x');
    // People notes for the authors, as text
    expect(textOf(panel)).toContain('Pat Panel');
    expect(panel).toContain('Prefers &lt;b&gt;short&lt;/b&gt; answers');
  });

  it('with a capture gap the amber block says so and links the roster, and the empty state says "cannot say"', async () => {
    const h = t();
    const s = await spawn(h, null, { title: 'came from slack' });
    // Slack ingress is not configured in this harness: a Slack-started session is a gap
    await h.store.kysely.updateTable('sessions').set({ genesis: 'slack' }).where('id', '=', s).execute();
    const panel = (await web.get(`/sessions/${s}/provenance_panel`)).text;
    expect(panel).toContain('class="notice warn capture-gaps"');
    expect(panel).toContain('data-gap-kind="not-instrumented" data-gap-channel="slack"');
    expect(panel).toContain('href="/supervisor/users"');
    expect(textOf(panel)).toContain('Capture is NOT configured for Slack');
    expect(panel).toContain('data-absence="cannot-say"');
    expect(textOf(panel)).not.toContain('No named human authored any message in this hierarchy.');
    // an api session under a configured web UI: nothing could have been missed, and it says so
    const clean = await spawn(h, null, { title: 'api only' });
    const cleanPanel = (await web.get(`/sessions/${clean}/provenance_panel`)).text;
    expect(cleanPanel).not.toContain('capture-gaps');
    expect(cleanPanel).toContain('data-absence="affirmative"');
    expect(textOf(cleanPanel)).toContain('No named human authored any message in this hierarchy.');
  });
});
