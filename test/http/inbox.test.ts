import { expect, it } from 'vitest';
import { lapseLeases } from '../../src/app/inbox/runtime-inbox.js';
import { describeEachDialect, ManualClock, uniqueKey, type Harness } from '../helpers/harness.js';
import { eventsOf, followUp, liveSession } from '../helpers/lineage.js';

const clock = new ManualClock();

const lease = (h: Harness, token: string, id: number, body?: Record<string, unknown>) =>
  h.request('POST', `/api/v1/sessions/${id}/inbox/lease`, { token, ...(body ? { body } : {}) });
const ack = (h: Harness, token: string, id: number, ids: unknown) => h.request('POST', `/api/v1/sessions/${id}/inbox/ack`, { token, body: { ids } });
const list = (h: Harness, id: number, qs = '') => h.request('GET', `/api/v1/sessions/${id}/inbox${qs}`, { token: h.fleetKey });

async function liveInboxEvents(h: Harness, sessionId: number): Promise<any[]> {
  const rows = await h.store.kysely
    .selectFrom('live_events')
    .select(['type', 'payload'])
    .where('type', '=', 'inbox_changed')
    .where('session_id', '=', sessionId)
    .orderBy('id')
    .execute();
  return rows.map((r) => JSON.parse(r.payload));
}

describeEachDialect(
  'the inbox: lease, acknowledge, lapse (docs/design/messages.md)',
  (t) => {
    it('a lease hands items out once; ack marks them delivered; a GET lists and changes nothing', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      await followUp(h, h.fleetKey, s.id, { content: 'first' });
      await followUp(h, h.fleetKey, s.id, { content: 'second' });
      const before = await list(h, s.id);
      expect(before.body.items.map((i: any) => [i.content, i.state])).toEqual([
        ['first', 'pending'],
        ['second', 'pending'],
      ]);
      expect((await list(h, s.id)).body).toEqual(before.body);

      const l = await lease(h, s.token, s.id);
      expect(l.status).toBe(200);
      expect(l.body.items.map((i: any) => [i.content, i.state, i.lease_count, i.redelivery, i.frame])).toEqual([
        ['first', 'leased', 1, false, { format: 'text', text: 'first' }],
        ['second', 'leased', 1, false, { format: 'text', text: 'second' }],
      ]);
      expect(l.body.lease_expires_at).toBe(new Date(clock.now().getTime() + 60_000).toISOString());
      expect((await lease(h, s.token, s.id)).body.items).toEqual([]); // still leased: not handed out again

      const ids = l.body.items.map((i: any) => i.id);
      const a = await ack(h, s.token, s.id, [...ids, 999_999]);
      expect(a.body).toEqual({ delivered: ids, already_delivered: [], rejected: [{ id: 999_999, reason: 'not-found' }] });
      expect((await ack(h, s.token, s.id, ids)).body).toEqual({ delivered: [], already_delivered: ids, rejected: [] });
      expect((await list(h, s.id)).body.items).toEqual([]);
      const all = await list(h, s.id, '?state=all');
      expect(all.body.items.map((i: any) => i.state)).toEqual(['delivered', 'delivered']);
      expect(all.body.items.every((i: any) => typeof i.delivered_at === 'string')).toBe(true);
      expect((await liveInboxEvents(h, s.id)).map((e) => e.change)).toEqual(['added', 'added', 'leased', 'delivered']);
    });

    it('a lapsed lease returns the item to pending; it comes back marked as a redelivery, never as new', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      await followUp(h, h.fleetKey, s.id, { content: 'do not lose me' });
      const first = await lease(h, s.token, s.id);
      const id = first.body.items[0].id;
      clock.advance(59_999);
      expect((await list(h, s.id)).body.items[0].state).toBe('leased');
      expect((await list(h, s.id, '?state=pending')).body.items).toEqual([]);
      clock.advance(1);
      // reads see the lapse at once; the row itself is untouched by a read
      expect((await list(h, s.id)).body.items[0]).toMatchObject({ state: 'pending', lease_expires_at: null });
      expect((await list(h, s.id, '?state=pending')).body.items.map((i: any) => i.id)).toEqual([id]);
      expect((await list(h, s.id, '?state=leased')).body.items).toEqual([]);
      const stored = await h.store.kysely.selectFrom('inbox_items').select('state').where('id', '=', id).executeTakeFirstOrThrow();
      expect(stored.state).toBe('leased');
      const again = await lease(h, s.token, s.id);
      expect(again.body.items.map((i: any) => [i.id, i.lease_count, i.redelivery])).toEqual([[id, 2, true]]);
      expect((await ack(h, s.token, s.id, [id])).body.delivered).toEqual([id]);
    });

    it('housekeeping returns lapsed leases to pending and tells listeners; an ack after the lapse still delivers', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      await followUp(h, h.fleetKey, s.id, { content: 'one' });
      await followUp(h, h.fleetKey, s.id, { content: 'two' });
      const [one, two] = (await lease(h, s.token, s.id)).body.items.map((i: any) => i.id);
      clock.advance(60_000);
      expect(await lapseLeases(h.ctx)).toBeGreaterThanOrEqual(2);
      const rows = await h.store.kysely
        .selectFrom('inbox_items')
        .select(['id', 'state', 'lease_expires_at'])
        .where('session_id', '=', s.id)
        .orderBy('id')
        .execute();
      expect(rows.map((r) => [Number(r.id), r.state, r.lease_expires_at])).toEqual([
        [one, 'pending', null],
        [two, 'pending', null],
      ]);
      expect((await liveInboxEvents(h, s.id)).at(-1)).toMatchObject({ change: 'lease-lapsed', items: [{ id: one }, { id: two }] });
      // the runtime did receive `one` before its lease lapsed: its ack counts
      expect((await ack(h, s.token, s.id, [one])).body.delivered).toEqual([one]);
      expect((await lease(h, s.token, s.id)).body.items.map((i: any) => i.id)).toEqual([two]);
    });

    it('interrupt items first; when_idle only when the session is idle or the runtime says so', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const post = (path: string, content: string) => h.request('POST', `/api/v1/sessions/${s.id}/${path}`, { token: h.fleetKey, body: { content } });
      await post('enqueued_messages', 'when idle');
      await post('follow_up', 'next turn');
      await post('interrupt', 'interrupt now');
      await post('follow_up', 'next turn 2');
      const running = await lease(h, s.token, s.id);
      expect(running.body.items.map((i: any) => [i.content, i.mode])).toEqual([
        ['interrupt now', 'interrupt'],
        ['next turn', 'next_turn'],
        ['next turn 2', 'next_turn'],
      ]);
      expect((await lease(h, s.token, s.id)).body.items).toEqual([]);
      const idleRuntime = await lease(h, s.token, s.id, { runtime_idle: true });
      expect(idleRuntime.body.items.map((i: any) => i.content)).toEqual(['when idle']);

      const s2 = await liveSession(h, h.fleetKey);
      await h.request('POST', `/api/v1/sessions/${s2.id}/enqueued_messages`, { token: h.fleetKey, body: { content: 'queued' } });
      expect((await lease(h, s2.token, s2.id)).body.items).toEqual([]);
      expect((await h.request('POST', `/api/v1/sessions/${s2.id}/runtime`, { token: s2.token, body: { state: 'idle' } })).status).toBe(200);
      expect((await lease(h, s2.token, s2.id)).body.items.map((i: any) => i.content)).toEqual(['queued']);
    });

    it('max_items bounds a lease; the rest waits for the next one', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      for (const c of ['a', 'b', 'c']) await followUp(h, h.fleetKey, s.id, { content: c });
      expect((await lease(h, s.token, s.id, { max_items: 2 })).body.items.map((i: any) => i.content)).toEqual(['a', 'b']);
      expect((await lease(h, s.token, s.id, { max_items: 2 })).body.items.map((i: any) => i.content)).toEqual(['c']);
      const bad = await lease(h, s.token, s.id, { max_items: 0 });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ error: 'invalid-request', field: 'max_items' });
    });

    it('only the session itself, fleet supervisors and admins may lease or acknowledge', async () => {
      const h = t();
      const human = await h.human(uniqueKey());
      const admin = await h.human(uniqueKey('admin'), { admin: true });
      const client = await h.clientKey(`c${Date.now().toString(36)}`);
      const s = await liveSession(h, human.token);
      const other = await liveSession(h, h.fleetKey);
      await followUp(h, human.token, s.id, { content: 'for s' });
      for (const token of [human.token, other.token, client]) {
        const r = await lease(h, token, s.id);
        expect(r.status).toBe(403);
        expect(r.body.error).toBe('forbidden');
        expect((await ack(h, token, s.id, [1])).status).toBe(403);
      }
      // listing is a read: the owner may see what is queued for their session
      expect((await h.request('GET', `/api/v1/sessions/${s.id}/inbox`, { token: human.token })).body.items).toHaveLength(1);
      expect((await lease(h, admin.token, s.id)).body.items).toHaveLength(1);
      clock.advance(60_000);
      expect((await lease(h, h.fleetKey, s.id)).body.items).toHaveLength(1);
      // an inert token (its runtime exited) and a superseded one (re-attached) cannot lease
      await h.request('POST', `/api/v1/sessions/${other.id}/runtime`, { token: other.token, body: { state: 'exited', code: 0 } });
      const inert = await lease(h, other.token, other.id);
      expect(inert.status).toBe(403);
      expect(inert.body.error).toBe('session-not-live');
      expect((await h.request('POST', `/api/v1/sessions/${other.id}/attach`, { token: h.fleetKey })).status).toBe(200);
      const superseded = await lease(h, other.token, other.id);
      expect(superseded.status).toBe(403);
      expect(superseded.body.error).toBe('token-superseded');
    });

    it('ack input is validated and reports items that were never handed out', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const other = await liveSession(h, h.fleetKey);
      const mine = (await followUp(h, h.fleetKey, s.id)).body.inbox_item.id;
      const theirs = (await followUp(h, h.fleetKey, other.id)).body.inbox_item.id;
      expect((await ack(h, s.token, s.id, 'nope')).status).toBe(400);
      expect((await ack(h, s.token, s.id, [0])).status).toBe(400);
      const r = await ack(h, s.token, s.id, [mine, theirs]);
      expect(r.body).toEqual({
        delivered: [],
        already_delivered: [],
        rejected: [
          { id: mine, reason: 'not-leased' },
          { id: theirs, reason: 'not-found' },
        ],
      });
    });

    it('a stop of running work is a control item: interrupt mode, leased first, framed for the runtime', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      await followUp(h, h.fleetKey, s.id, { content: 'work' });
      const stop = await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: h.fleetKey });
      expect(stop.status).toBe(200);
      const items = (await lease(h, s.token, s.id)).body.items;
      expect(items.map((i: any) => [i.kind, i.mode, i.frame.format])).toEqual([
        ['control', 'interrupt', 'control'],
        ['follow_up', 'next_turn', 'text'],
      ]);
      expect(JSON.parse(items[0].frame.text)).toMatchObject({ kind: 'warrant-control', action: 'stop' });
      const added = await eventsOf(h, s.id, 'inbox_item_added');
      expect(added.map((e) => e.details.kind)).toEqual(['follow_up', 'control']);
      expect(added[1].actor).toMatchObject({ kind: 'fleet', basis: 'authenticated' });
    });
  },
  { clock },
);
