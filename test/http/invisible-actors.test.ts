import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { followUp, liveSession, type Live } from '../helpers/lineage.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';
import { SseReader } from '../helpers/sse.js';
import { WebClient } from '../helpers/web-client.js';

/**
 * Multi-user mode: a session the reader may not see is "a session you cannot see" wherever it
 * is an actor, cause or sender — no title (not even a later one), id, uid or owner.
 */

interface World {
  bob: { key: string; token: string };
  carol: { key: string; token: string };
  carols: { id: number; uid: string };
  titles: string[];
  bobs: Live;
  /** bob's session created by the fleet acting as carol's session (its creator and cause) */
  bobsChild: number;
}

async function world(h: Harness): Promise<World> {
  const bobKey = uniqueKey('bob');
  const carolKey = uniqueKey('carol');
  const bob = await h.human(bobKey);
  const carol = await h.human(carolKey);
  const first = `carol-secret-${randomBytes(4).toString('hex')}`;
  const carols = (await h.create(carol.token, { title: first })).session;
  const bobs = await liveSession(h, bob.token, { title: 'bob at work' });
  // the fleet declares carol's session as the acting session of acts on bob's
  expect((await followUp(h, h.fleetKey, bobs.id, { acting_session_id: carols.id })).status).toBe(201);
  const enq = await h.request('POST', `/api/v1/sessions/${bobs.id}/enqueued_messages`, {
    token: h.fleetKey,
    body: { content: 'later', acting_session_id: carols.id },
  });
  expect(enq.status, enq.text).toBe(201);
  const child = await h.create(h.fleetKey, { title: 'made for bob', owner: bobKey, acting_session_id: carols.id });
  // renamed afterwards: the live title must not surface either
  const second = `carol-renamed-${randomBytes(4).toString('hex')}`;
  const renamed = await h.request('PATCH', `/api/v1/sessions/${carols.id}`, { token: carol.token, body: { title: second } });
  expect(renamed.status, renamed.text).toBe(200);
  return {
    bob: { key: bobKey, token: bob.token },
    carol: { key: carolKey, token: carol.token },
    carols,
    titles: [first, second],
    bobs,
    bobsChild: child.session.id,
  };
}

/** Every way the text could name carol's session. */
function expectNoTrace(w: World, label: string, text: string): void {
  for (const t of w.titles) expect(text, `${label}: title`).not.toContain(t);
  expect(text, `${label}: uid`).not.toContain(w.carols.uid);
  expect(text, `${label}: uid prefix`).not.toContain(w.carols.uid.slice(0, 13));
  expect(text, `${label}: owner`).not.toContain(w.carol.key);
  const id = w.carols.id;
  for (const pattern of [
    new RegExp(`"ref":\\s*"${id}"`),
    new RegExp(`#${id}(?!\\d)`),
    new RegExp(`session_id":\\s*${id}(?!\\d)`),
    new RegExp(`session-${id}(?!\\d)`),
    new RegExp(`/sessions/${id}(?!\\d)`),
  ]) {
    expect(text, `${label}: id as ${pattern}`).not.toMatch(pattern);
  }
}

const HIDDEN = { kind: 'session', ref: null, display_name: null };

describeEachDialect(
  'invisible means invisible (multi-user mode)',
  (t) => {
    it('a fleet follow-up declaring carol’s session shows bob an unnamed sender in his inbox and events; carol and the fleet still see its title', async () => {
      const h = t();
      const w = await world(h);
      const inbox = await h.request('GET', `/api/v1/sessions/${w.bobs.id}/inbox?state=all`, { token: w.bob.token });
      expect(inbox.status).toBe(200);
      const followUpItem = inbox.body.items.find((i: any) => i.kind === 'follow_up');
      expect(followUpItem).toMatchObject({ sender: { ...HIDDEN, basis: 'declared' }, sender_session_id: null });
      expectNoTrace(w, 'inbox', inbox.text);
      const md = await h.request('GET', `/api/v1/sessions/${w.bobs.id}/inbox?state=all&format=markdown`, { token: w.bob.token });
      expect(md.text).toContain('a session you cannot see');
      expectNoTrace(w, 'inbox markdown', md.text);

      const events = await h.request('GET', `/api/v1/sessions/${w.bobs.id}/events?limit=200`, { token: w.bob.token });
      const added = events.body.events.filter((e: any) => e.type === 'inbox_item_added');
      expect(added.length).toBeGreaterThanOrEqual(2);
      for (const e of added) {
        expect(e.actor).toMatchObject({ ...HIDDEN, basis: 'declared' });
        expect(e.details).toMatchObject({ sender: { kind: 'session', ref: null }, sender_session_id: null });
      }
      expectNoTrace(w, 'events', events.text);

      // positive controls: the fleet (sees everything) gets the current title ...
      const fleetInbox = await h.request('GET', `/api/v1/sessions/${w.bobs.id}/inbox?state=all`, { token: h.fleetKey });
      expect(fleetInbox.body.items.find((i: any) => i.kind === 'follow_up')).toMatchObject({
        sender: { kind: 'session', ref: String(w.carols.id), display_name: w.titles[1] },
        sender_session_id: w.carols.id,
      });
      // ... and so does carol, for her own session acting on another of hers
      const carols2 = await liveSession(h, w.carol.token, { title: 'carol two' });
      expect((await followUp(h, h.fleetKey, carols2.id, { acting_session_id: w.carols.id })).status).toBe(201);
      const carolInbox = await h.request('GET', `/api/v1/sessions/${carols2.id}/inbox`, { token: w.carol.token });
      expect(carolInbox.body.items[0]).toMatchObject({
        sender: { kind: 'session', ref: String(w.carols.id), display_name: w.titles[1] },
        sender_session_id: w.carols.id,
      });
      const carolEvents = await h.request('GET', `/api/v1/sessions/${carols2.id}/events`, { token: w.carol.token });
      expect(carolEvents.text).toContain(w.titles[1]);
    });

    it('a session created on carol’s session’s declared act shows bob an unnamed creator and cause', async () => {
      const h = t();
      const w = await world(h);
      const r = await h.request('GET', `/api/v1/sessions/${w.bobsChild}`, { token: w.bob.token });
      expect(r.status).toBe(200);
      expect(r.body.session.creator).toMatchObject(HIDDEN);
      expect(r.body.session.cause).toMatchObject(HIDDEN);
      expectNoTrace(w, 'session', r.text);
      const fleet = await h.request('GET', `/api/v1/sessions/${w.bobsChild}`, { token: h.fleetKey });
      expect(fleet.body.session.creator).toMatchObject({ kind: 'session', ref: String(w.carols.id), display_name: w.titles[1] });
    });

    it('no read route, MCP tool or web page bob can use names carol’s session', async () => {
      const h = t();
      const w = await world(h);
      const ids = [w.bobs.id, w.bobsChild];
      for (const token of [w.bob.token, w.bobs.token]) {
        const who = token === w.bob.token ? 'bob' : 'bob’s session';
        const paths = [
          '/api/v1/sessions',
          '/api/v1/sessions?format=markdown',
          '/api/v1/session_deletions',
          ...ids.flatMap((id) => [
            `/api/v1/sessions/${id}`,
            `/api/v1/sessions/${id}?format=markdown`,
            `/api/v1/sessions/${id}/events?limit=200`,
            `/api/v1/sessions/${id}/inbox?state=all`,
            `/api/v1/sessions/${id}/inbox?state=all&format=markdown`,
            `/api/v1/sessions/${id}/enqueued_messages`,
            `/api/v1/sessions/${id}/provenance`,
            `/api/v1/sessions/${id}/provenance?format=markdown`,
            `/api/v1/sessions/${id}/provenance?format=prov-json`,
            `/api/v1/sessions/${id}/hierarchy`,
            `/api/v1/sessions/${id}/warrant`,
            `/api/v1/sessions/${id}/conversations`,
          ]),
        ];
        for (const path of paths) {
          const r = await h.request('GET', path, { token });
          // a route a session token may not use is a refusal, which names nothing either
          expect(r.status, `${who} ${path}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
          expectNoTrace(w, `${who} GET ${path}`, r.text);
        }
      }

      const mcp = await mcpClient(h, w.bob.token);
      try {
        const calls: [string, Record<string, unknown>][] = [
          ['list_sessions', {}],
          ...ids.flatMap((id): [string, Record<string, unknown>][] => [
            ['get_session', { session_id: id, verbose: true }],
            ['get_session_provenance', { session_id: id }],
            ['check_warrant', { session_id: id }],
            ['manage_enqueued_messages', { action: 'list', session_id: id }],
          ]),
        ];
        for (const [name, args] of calls) {
          const r = await callTool(mcp, name, args);
          expect(r.isError, `mcp ${name}: ${r.text.slice(0, 200)}`).toBe(false);
          expectNoTrace(w, `mcp ${name}`, `${r.text}\n${JSON.stringify(r.data ?? null)}`);
        }
      } finally {
        await mcp.close();
      }
      const self = await mcpClient(h, w.bobs.token, '/mcp/self');
      try {
        for (const name of ['get_session', 'get_session_provenance', 'check_warrant', 'read_inbox']) {
          const r = await callTool(self, name, {});
          expect(r.isError, `mcp/self ${name}: ${r.text.slice(0, 200)}`).toBe(false);
          expectNoTrace(w, `mcp/self ${name}`, `${r.text}\n${JSON.stringify(r.data ?? null)}`);
        }
        // read_inbox leased the follow-up: the sender is unnamed there too
        const again = await callTool(self, 'read_inbox', {});
        expectNoTrace(w, 'mcp/self read_inbox (again)', `${again.text}\n${JSON.stringify(again.data ?? null)}`);
      } finally {
        await self.close();
      }

      const web = new WebClient(h);
      await web.signInWithLink(w.bob.key);
      for (const id of ids) {
        const page = await web.request('GET', `/sessions/${id}`);
        expect(page.status, `web /sessions/${id}`).toBe(200);
        expectNoTrace(w, `web /sessions/${id}`, page.text);
      }
      const list = await web.request('GET', '/sessions');
      expectNoTrace(w, 'web /sessions', list.text);
    });

    it('bob’s live stream names carol’s session nowhere (a fleet create for bob acting as her session)', async () => {
      const h = t();
      const bobKey = uniqueKey('bob');
      const bob = await h.human(bobKey);
      const res = await h.service.app.request('/api/v1/events/stream', { headers: { authorization: `Bearer ${bob.token}`, host: 'localhost' } });
      expect(res.status).toBe(200);
      const live = new SseReader(res);
      try {
        await live.next((e) => e.event === 'ready');
        const carol = await h.human(uniqueKey('carol'));
        const title = `carol-live-${randomBytes(4).toString('hex')}`;
        const carols = (await h.create(carol.token, { title })).session;
        const child = (await h.create(h.fleetKey, { title: 'made for bob', owner: bobKey, acting_session_id: carols.id })).session;
        const got = await live.next((e) => e.event === 'session_created');
        const payload = JSON.parse(got.data).session;
        expect(payload.id).toBe(child.id);
        expect(payload.creator).toMatchObject(HIDDEN);
        expect(payload.cause).toMatchObject(HIDDEN);
        expectNoTrace({ carols, titles: [title], carol: { key: carol.user.key } } as unknown as World, 'live session_created', got.data);
      } finally {
        await live.close();
      }
    });

    it('a parent hint naming another owner’s session answers not-found, exactly like a missing one (no probing ids or uid prefixes)', async () => {
      const h = t();
      const w = await world(h);
      const probe = async (hint: unknown) => (await h.create(w.bob.token, { parent_session_id: hint })).parent_resolution;
      const missing = await probe(999_999_999);
      const foreignId = await probe(w.carols.id);
      const foreignUid = await probe(w.carols.uid);
      const foreignPrefix = await probe(w.carols.uid.slice(0, 8));
      const missingUid = await probe('uid:00000000-0000-4000-8000-000000000000');
      for (const r of [missing, foreignId, foreignUid, foreignPrefix, missingUid])
        expect(r).toMatchObject({ resolved_id: null, basis: null, dropped: 'not-found' });
      // the correction route answers the same way
      const patch = await h.request('PATCH', `/api/v1/sessions/${w.bobs.id}`, { token: w.bob.token, body: { parent_session_id: w.carols.id } });
      const patchMissing = await h.request('PATCH', `/api/v1/sessions/${w.bobs.id}`, { token: w.bob.token, body: { parent_session_id: 999_999_999 } });
      expect(patch.status).toBe(patchMissing.status);
      expect(patch.body?.error).toBe(patchMissing.body?.error);
      expect(patch.body?.details?.reason).toBe(patchMissing.body?.details?.reason);
    });
  },
  { mode: 'multi-user' },
);
