import { describe, expect, it } from 'vitest';
import { pgAvailable, type DialectName } from '../helpers/databases.js';
import { SseReader } from '../helpers/sse.js';
import { startNodes } from '../reliability/support/nodes.js';

/**
 * The live stream as the Node server writes it (src/http/sse-sink.ts writes frames straight to
 * the response; in-process requests take Hono's stream instead, so this runs the built server):
 * its headers, its events, a replay from Last-Event-ID, and a disconnect that releases the
 * subscription.
 */
async function sseClients(url: string, token: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  return Number(/^warrant_sse_clients (\d+)$/m.exec(text)?.[1]);
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
}

describe.each<DialectName>(['sqlite', 'postgres'])('%s: the live stream of the Node server', (dialect) => {
  it.skipIf(dialect === 'postgres' && !pgAvailable())('streams events, replays from Last-Event-ID and lets go of a reader that leaves', async () => {
    const { nodes, stop } = await startNodes(dialect);
    const { url, fleetKey } = nodes[0]!;
    try {
      const idle = await sseClients(url, fleetKey);
      const leaving = new AbortController();
      const res = await fetch(`${url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${fleetKey}` }, signal: leaving.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const live = new SseReader(res);
      await live.next((e) => e.event === 'ready');
      expect(await sseClients(url, fleetKey)).toBe(idle + 1);

      const created = await fetch(`${url}/api/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fleetKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'over the node stream\nsecond line' }),
      });
      const id = ((await created.json()) as { session: { id: number } }).session.id;
      const event = await live.next((e) => e.event === 'session_created');
      expect(JSON.parse(event.data).session).toMatchObject({ id });
      expect(Number(event.id)).toBeGreaterThan(0);

      const replay = new SseReader(
        await fetch(`${url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${fleetKey}`, 'last-event-id': String(Number(event.id) - 1) } }),
      );
      const replayed = await replay.next((e) => e.event === 'session_created');
      expect(replayed).toEqual(event);
      await replay.close();

      leaving.abort();
      await until(async () => (await sseClients(url, fleetKey)) === idle);
      expect(await sseClients(url, fleetKey)).toBe(idle);
    } finally {
      expect(await stop()).toEqual(nodes.map(() => 0));
    }
  });
});
