import { expect, it } from 'vitest';
import { pruneLiveEvents } from '../../src/store/live-repo.js';
import { describeEachDialect, type Harness } from '../helpers/harness.js';
import { SseReader } from '../helpers/sse.js';

async function stream(h: Harness, lastEventId?: string): Promise<SseReader> {
  const res = await h.service.app.request('/api/v1/events/stream', {
    headers: { authorization: `Bearer ${h.fleetKey}`, host: 'localhost', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
  });
  expect(res.status).toBe(200);
  return new SseReader(res);
}

/** docs/design/surfaces.md "Server-Sent Events": a reconnect beyond the bounded backlog gets `resync`, then the live stream. */
describeEachDialect('SSE: resync beyond the backlog (docs/design/surfaces.md)', (t) => {
  it('a Last-Event-ID older than the kept backlog gets one resync (with the current id), nothing replayed, then live events', async () => {
    const h = t();
    const first = await stream(h);
    await first.next((e) => e.event === 'ready');
    const a = (await h.create(h.fleetKey, { title: 'seen before the disconnect' })).session;
    const seen = await first.next((e) => e.event === 'session_created' && JSON.parse(e.data).session.id === a.id);
    await first.close();

    const b = (await h.create(h.fleetKey, { title: 'missed and pruned' })).session;
    const c = (await h.create(h.fleetKey, { title: 'missed, still kept' })).session;
    // the backlog bound (housekeeping) drops everything up to b's event: a reconnect after a's id can no longer be replayed
    const ids = await h.store.kysely.selectFrom('live_events').select(['id', 'payload']).where('id', '>', Number(seen.id)).orderBy('id').execute();
    const bEvent = ids.find((r) => String(r.payload).includes(`"uid":"${b.uid}"`));
    expect(bEvent).toBeDefined();
    await pruneLiveEvents(h.store.kysely, Number(bEvent!.id));

    const again = await stream(h, seen.id!);
    const resync = await again.next();
    expect(resync.event).toBe('resync');
    expect(Number(resync.id)).toBeGreaterThan(Number(bEvent!.id));
    expect(JSON.parse(resync.data).reason).toMatch(/reload/);
    const ready = await again.next();
    expect(ready.event).toBe('ready');
    expect(JSON.parse(ready.data).last_event_id).toBe(Number(resync.id));
    // live again: the next change arrives, and nothing from before the resync is replayed
    const d = (await h.create(h.fleetKey, { title: 'after the resync' })).session;
    const live = await again.next((e) => e.event === 'session_created');
    expect(JSON.parse(live.data).session.id).toBe(d.id);
    expect(Number(live.id)).toBeGreaterThan(Number(resync.id));
    expect(c.id).toBeLessThan(d.id);
    await again.close();

    // a reconnect inside the backlog still replays, with no resync
    const inside = await stream(h, String(bEvent!.id));
    const replayed = await inside.next();
    expect(replayed.event).not.toBe('resync');
    expect(JSON.parse(replayed.data).session.id).toBe(c.id);
    await inside.close();
  });
});
