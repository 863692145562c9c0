import { Hono } from 'hono';
import { expect, it } from 'vitest';
import { authenticate } from '../../src/app/credentials.js';
import { MAX_QUEUED_FRAMES, streamLiveEvents } from '../../src/http/routes/live.js';
import { describeEachDialect, type Harness } from '../helpers/harness.js';
import { SseReader } from '../helpers/sse.js';

/**
 * A reader that stops reading must not make the node hold what it owes: past
 * MAX_QUEUED_FRAMES waiting frames its stream is cut (it reconnects with Last-Event-ID and the
 * store's backlog replays). The frames come through the stream's derived hook, so the test
 * controls exactly how many wait; the response is read in process, so no kernel buffer absorbs
 * them first.
 */
async function openStream(h: Harness): Promise<{ reader: SseReader; push: (event: string, data: string) => void }> {
  const caller = await authenticate(h.ctx, h.fleetKey, 'rest', 'rest');
  let push: ((event: string, data: string) => void) | undefined;
  const app = new Hono();
  app.get('/stream', (c) =>
    streamLiveEvents(c, h.ctx, caller, {
      derived: (p) => {
        push = p;
        return Promise.resolve(() => {});
      },
    }),
  );
  const reader = new SseReader(await app.request('/stream'));
  await reader.next((e) => e.event === 'ready');
  return { reader, push: push! };
}

describeEachDialect('live stream: a reader that stops reading (docs/api.md "Live events")', (t) => {
  it(`is cut once ${MAX_QUEUED_FRAMES} frames wait for it, and its subscription is released`, async () => {
    const h = t();
    const subscribers = h.ctx.live.subscriberCount;
    const { reader, push } = await openStream(h);
    expect(h.ctx.live.subscriberCount).toBe(subscribers + 1);
    // nothing reads while these are pushed: at most a frame or two is in flight, the rest wait
    for (let i = 0; i < MAX_QUEUED_FRAMES + 10; i++) push('note', `frame ${i}`);
    const received: string[] = [];
    await expect(
      (async () => {
        for (;;) received.push((await reader.next()).data);
      })(),
    ).rejects.toThrow('SSE stream ended');
    expect(received.length).toBeLessThan(10);
    expect(h.ctx.live.subscriberCount).toBe(subscribers);
  });

  it('is not cut while it keeps up, however many frames pass in all', async () => {
    const h = t();
    const { reader, push } = await openStream(h);
    const batch = Math.ceil(MAX_QUEUED_FRAMES / 2);
    let n = 0;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < batch; i++) push('note', `frame ${n++}`);
      for (let i = n - batch; i < n; i++) expect((await reader.next((e) => e.event === 'note')).data).toBe(`frame ${i}`);
    }
    expect(n).toBeGreaterThan(MAX_QUEUED_FRAMES);
    await reader.close();
  });
});
