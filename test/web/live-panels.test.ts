import { afterEach, expect, it } from 'vitest';
import { walkCounts } from '../../src/app/lineage/hierarchy-refresh.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { spawn, writeUncleEdge } from '../helpers/lineage.js';
import { SseReader } from '../helpers/sse.js';
import { WebClient, textOf } from '../helpers/web-client.js';

/** Live provenance panels: every viewer of one lineage shares the refresh's walk (docs/api.md). */

const open: SseReader[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

/** A viewer: the session page's stream, keeping the panel of `session` live. */
async function viewer(h: Harness, web: WebClient, session: number): Promise<SseReader> {
  const res = await h.service.app.request(`http://localhost/ui/events?panel=${session}`, { headers: { host: 'localhost', cookie: web.cookieHeader() } });
  expect(res.status).toBe(200);
  const reader = new SseReader(res);
  open.push(reader);
  await reader.next((e) => e.event === 'ready');
  // the panel as of the subscription: sent once, so a change made while the page loaded is not missed
  const first = await reader.next((e) => e.event === `panel-${session}`);
  expect(first.data).toMatch(/^<section id="provenance-panel"/);
  return reader;
}

async function signedIn(h: Harness, key: string): Promise<WebClient> {
  const web = new WebClient(h);
  await web.signInWithLink(key);
  return web;
}

describeEachDialect(
  'live provenance panels share one walk per change',
  (t) => {
    it('20 viewers of one lineage: a title change costs at most 1 walk, an edge change at most 2 (not 20), and each viewer gets the new panel', async () => {
      const h = t();
      const alice = await h.human(uniqueKey('alice'));
      const root = await spawn(h, null, { title: 'panel root' }, alice.token);
      const me = await spawn(h, root, { title: 'panel me' }, alice.token);
      for (let i = 0; i < 3; i++) await spawn(h, me, { title: `panel child ${i}` }, alice.token);
      const web = await signedIn(h, alice.user.key);
      const viewers: SseReader[] = [];
      for (let i = 0; i < 20; i++) viewers.push(await viewer(h, web, me));
      await h.ctx.hierarchies.settle();

      const before = walkCounts.total;
      const patched = await h.request('PATCH', `/api/v1/sessions/${root}`, { token: alice.token, body: { title: 'renamed root' } });
      expect(patched.status).toBe(200);
      await h.ctx.hierarchies.settle();
      for (const v of viewers) {
        const panel = await v.next((e) => e.event === `panel-${me}` && e.data.includes('renamed root'));
        expect(panel.data).toMatch(/^<section id="provenance-panel"/);
        expect(textOf(panel.data)).toContain('panel child 2');
      }
      // a title changes rows only: the shared view is rebuilt from its last walk; at most the broadcast form walks
      expect(walkCounts.total - before).toBeLessThanOrEqual(1);

      // an edge change walks the shared view again — once, not once per viewer — plus the
      // broadcast form from the junior end, whose walk covers the senior end's
      const helper = await spawn(h, null, { title: 'interrupting helper' }, alice.token);
      await h.ctx.hierarchies.settle();
      const beforeEdge = walkCounts.total;
      await writeUncleEdge(h, helper, me, 'declared');
      await h.ctx.hierarchies.settle();
      for (const v of viewers) {
        const panel = await v.next((e) => e.event === `panel-${me}` && e.data.includes('interrupting helper'));
        expect(textOf(panel.data)).toContain('renamed root');
      }
      expect(walkCounts.total - beforeEdge).toBeGreaterThanOrEqual(1);
      expect(walkCounts.total - beforeEdge).toBeLessThanOrEqual(2);
    });

    it('viewers who may see different things get their own panel from their own view, never the other one', async () => {
      const h = t();
      const alice = await h.human(uniqueKey('alice'));
      const bob = await h.human(uniqueKey('bob'));
      const admin = await h.human(uniqueKey('admin'), { admin: true });
      const root = await spawn(h, null, { title: 'alice root' }, alice.token);
      const me = await spawn(h, root, { title: 'alice child' }, alice.token);
      const bobs = await spawn(h, null, { title: 'bob secret' }, bob.token);
      // rows a writer would refuse across owners: the walk must still hide them from alice
      await writeUncleEdge(h, bobs, me, 'declared');
      const aliceWeb = await signedIn(h, alice.user.key);
      const adminWeb = await signedIn(h, admin.user.key);
      const alices: SseReader[] = [];
      const admins: SseReader[] = [];
      for (let i = 0; i < 10; i++) alices.push(await viewer(h, aliceWeb, me));
      for (let i = 0; i < 10; i++) admins.push(await viewer(h, adminWeb, me));
      // bob's session on alice's stream: not readable, so not watched (nothing sent, no error)
      const probe = await h.service.app.request(`http://localhost/ui/events?panel=${bobs}`, {
        headers: { host: 'localhost', cookie: aliceWeb.cookieHeader() },
      });
      expect(probe.status).toBe(200);
      const probeReader = new SseReader(probe);
      open.push(probeReader);
      await probeReader.next((e) => e.event === 'ready');
      await h.ctx.hierarchies.settle();

      const before = walkCounts.total;
      expect((await h.request('PATCH', `/api/v1/sessions/${root}`, { token: alice.token, body: { title: 'alice root renamed' } })).status).toBe(200);
      await h.ctx.hierarchies.settle();
      for (const v of alices) {
        const panel = await v.next((e) => e.event === `panel-${me}` && e.data.includes('alice root renamed'));
        expect(panel.data).not.toContain('bob secret');
        expect(panel.data).not.toContain(`data-node-id="${bobs}"`);
      }
      for (const v of admins) {
        const panel = await v.next((e) => e.event === `panel-${me}` && e.data.includes('alice root renamed'));
        expect(panel.data).toContain('bob secret');
      }
      // one walk per distinct visibility (alice's, the admin's) and the broadcast form: not 20
      expect(walkCounts.total - before).toBeLessThanOrEqual(3);
      await expect(probeReader.next((e) => e.event.startsWith('panel-'), 300)).rejects.toThrow(/no matching SSE event/);
    });

    it('a human message recorded in the view re-renders every viewer’s panel, without a walk per viewer', async () => {
      const h = t();
      const alice = await h.human(uniqueKey('alice'));
      const root = await spawn(h, null, { title: 'record root', attach: true }, alice.token);
      const me = await spawn(h, root, { title: 'record me' }, alice.token);
      const web = await signedIn(h, alice.user.key);
      const viewers = [await viewer(h, web, me), await viewer(h, web, me)];
      await h.ctx.hierarchies.settle();
      const before = walkCounts.total;
      const said = await h.request('POST', `/api/v1/sessions/${root}/follow_up`, { token: alice.token, body: { content: 'please also check the cache' } });
      expect(said.status).toBeLessThan(300);
      await h.ctx.hierarchies.settle();
      for (const v of viewers) {
        const panel = await v.next((e) => e.event === `panel-${me}` && e.data.includes('please also check the cache'));
        expect(panel.data).toMatch(/^<section id="provenance-panel"/);
      }
      expect(walkCounts.total - before).toBeLessThanOrEqual(2);
    });
  },
  { mode: 'multi-user' },
);
