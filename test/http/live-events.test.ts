import { expect, it } from 'vitest';
import { describeEachDialect, openHarness, uniqueKey } from '../helpers/harness.js';
import { SseReader } from '../helpers/sse.js';

async function stream(h: { service: { app: { request: (p: string, i: RequestInit) => Response | Promise<Response> } } }, token: string, lastEventId?: string) {
  const res = await h.service.app.request('/api/v1/events/stream', {
    headers: { authorization: `Bearer ${token}`, host: 'localhost', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
  });
  expect(res.status).toBe(200);
  return new SseReader(res);
}

describeEachDialect('live events over SSE (docs/design/surfaces.md)', (t) => {
  it('emits session_created and session_updated with the full session state, never metadata blobs', async () => {
    const h = t();
    const sse = await stream(h, h.fleetKey);
    await sse.next((e) => e.event === 'ready');
    const s = (await h.create(h.fleetKey, { title: 'live', prompt: 'secret prompt text', custom_metadata: { big: 'blob' } })).session;
    const created = await sse.next((e) => e.event === 'session_created' && JSON.parse(e.data).session.id === s.id);
    expect(Number(created.id)).toBeGreaterThan(0);
    const payload = JSON.parse(created.data);
    expect(payload.session).toMatchObject({ id: s.id, title: 'live', status: 'pending' });
    expect(created.data).not.toContain('secret prompt text');
    expect(payload.session.custom_metadata).toBeUndefined();
    await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token: h.fleetKey, body: { title: 'renamed live' } });
    const updated = await sse.next((e) => e.event === 'session_updated' && JSON.parse(e.data).session.id === s.id);
    expect(JSON.parse(updated.data).session.title).toBe('renamed live');
    expect(Number(updated.id)).toBeGreaterThan(Number(created.id));
    await sse.close();
  });

  it('a reconnect with Last-Event-ID replays what it missed, in order', async () => {
    const h = t();
    const first = await stream(h, h.fleetKey);
    await first.next((e) => e.event === 'ready');
    const a = (await h.create(h.fleetKey, { title: 'before disconnect' })).session;
    const seen = await first.next((e) => e.event === 'session_created' && JSON.parse(e.data).session.id === a.id);
    await first.close();
    const b = (await h.create(h.fleetKey, { title: 'missed 1' })).session;
    const c = (await h.create(h.fleetKey, { title: 'missed 2' })).session;
    const again = await stream(h, h.fleetKey, seen.id!);
    const r1 = await again.next((e) => e.event === 'session_created');
    const r2 = await again.next((e) => e.event === 'session_created');
    expect([JSON.parse(r1.data).session.id, JSON.parse(r2.data).session.id]).toEqual([b.id, c.id]);
    await again.close();
  });

  it('session_deleted reaches subscribers', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('sse-admin'), { admin: true });
    const s = (await h.create(token, { title: 'to delete' })).session;
    const sse = await stream(h, h.fleetKey);
    await sse.next((e) => e.event === 'ready');
    await h.request('DELETE', `/api/v1/sessions/${s.id}`, { token });
    const del = await sse.next((e) => e.event === 'session_deleted');
    expect(JSON.parse(del.data)).toEqual({ id: s.id, uid: s.uid });
    await sse.close();
  });

  it('filters events per subscriber by visibility (multi-user)', async () => {
    const h = await openHarness(t().dialect, { mode: 'multi-user' });
    try {
      const alice = await h.human(uniqueKey('alice'));
      const bob = await h.human(uniqueKey('bob'));
      const bobStream = await stream(h, bob.token);
      await bobStream.next((e) => e.event === 'ready');
      const hidden = (await h.create(alice.token, { title: "alice's secret" })).session;
      const visible = (await h.create(bob.token, { title: "bob's" })).session;
      const got = await bobStream.next((e) => e.event === 'session_created');
      expect(JSON.parse(got.data).session.id).toBe(visible.id);
      expect(got.data).not.toContain(String(hidden.uid));
      await bobStream.close();
    } finally {
      await h.close();
    }
  });
});
