import { beforeAll, expect, it } from 'vitest';
import { SETTING_ADMIN_USER } from '../../src/app/bootstrap.js';
import { setSetting } from '../../src/store/settings-repo.js';
import { causationWorld, type CausationWorld } from '../helpers/causation-fixture.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { WebClient } from '../helpers/web-client.js';

/** A person's page on the roster (docs/web-ui.md): what they caused, server-rendered and paged. */

const attrs = (html: string, name: string): number[] => [...html.matchAll(new RegExp(`${name}="(\\d+)"`, 'g'))].map((m) => Number(m[1]));
const link = (html: string, label: string): string | null => {
  const m = new RegExp(`<a href="([^"]+)">${label}</a>`).exec(html);
  return m ? m[1]!.replace(/&amp;/g, '&') : null;
};

async function walk(web: WebClient, start: string, attr: string, label: string): Promise<number[]> {
  const out: number[] = [];
  let path: string | null = start;
  let pages = 0;
  for (; path && pages < 100; pages++) {
    const r = await web.get(path);
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    const section = r.text.slice(r.text.indexOf(attr === 'data-session-row' ? 'data-caused-sessions' : 'data-caused-events'));
    out.push(...attrs(section.slice(0, section.indexOf('</section>')), attr));
    path = link(r.text, label);
  }
  // more than one page, or paging was never exercised
  expect(pages).toBeGreaterThan(1);
  return out;
}

describeEachDialect('the person page: what they caused (single-admin mode)', (t) => {
  let web: WebClient;
  let w: CausationWorld;
  beforeAll(async () => {
    const h: Harness = t();
    const adminKey = uniqueKey('admin');
    await h.human(adminKey, { admin: true });
    await setSetting(h.store.kysely, SETTING_ADMIN_USER, adminKey, new Date().toISOString());
    web = new WebClient(h);
    await web.signInWithLink();
    w = await causationWorld(h);
  });

  it('is linked from the roster and the user page; lists exactly the sessions alice caused, paged, each once', async () => {
    const roster = await web.get('/supervisor/users');
    expect(roster.text).toContain(`href="/supervisor/users/${w.alice.key}/caused"`);
    const user = await web.get(`/supervisor/users/${w.alice.key}`);
    expect(user.text).toContain(`href="/supervisor/users/${w.alice.key}/caused"`);
    const sessions = await walk(web, `/supervisor/users/${w.alice.key}/caused?limit=2`, 'data-session-row', 'Older sessions →');
    expect(sessions).toEqual([...w.alices].sort((a, b) => b - a));
  });

  it("lists the events on her behalf (the work queued on carol's tree among them) and, per token, every act of it", async () => {
    const h = t();
    const page = await web.get(`/supervisor/users/${w.alice.key}/caused`);
    // the event on carol's tree, named by its session and told as the timeline tells it: no raw type, no JSON
    expect(page.text).toMatch(
      new RegExp(`<li class="event"[^>]*data-event-type="inbox_item_added"[^>]*>.*?href="/sessions/${w.carolsRoot.id}">session #${w.carolsRoot.id}</a>`, 's'),
    );
    const visible = page.text.replace(/<[^>]+>/g, ' ');
    expect(visible).not.toMatch(/\binbox_item_added\b|\{"/);
    const events = await walk(web, `/supervisor/users/${w.alice.key}/caused?limit=3`, 'data-event-id', 'Older events →');
    const rest = await h.request('GET', `/api/v1/events?cause=human:${w.alice.key}&limit=200`, { token: h.fleetKey });
    expect(events).toEqual(rest.body.events.map((e: { id: number }) => e.id));

    const created = await h.request('GET', `/api/v1/sessions/${w.router.id}/events`, { token: h.fleetKey });
    const credential = created.body.events[0].credential_id as number;
    const user = await web.get(`/supervisor/users/${w.alice.key}`);
    expect(user.text).toContain(`href="/supervisor/users/${w.alice.key}/caused?credential=${credential}"`);
    const acts = await walk(web, `/supervisor/users/${w.alice.key}/caused?credential=${credential}&limit=2`, 'data-event-id', 'Older events →');
    const byToken = await h.request('GET', `/api/v1/events?credential=${credential}&limit=200`, { token: h.fleetKey });
    expect(acts).toEqual(byToken.body.events.map((e: { id: number }) => e.id));
    expect(acts.length).toBeGreaterThan(0);
    // another person's credential is not hers to show
    const bobs = await h.request('GET', `/api/v1/events?actor=${w.bob.key}&limit=1`, { token: h.fleetKey });
    const other = await web.get(`/supervisor/users/${w.alice.key}/caused?credential=${bobs.body.events[0].credential_id}`);
    expect(other.status).toBe(404);
    expect((await web.get('/supervisor/users/nobody-at-all/caused')).status).toBe(404);
  });
});
