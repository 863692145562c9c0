import { describe, expect, it } from 'vitest';
import { pgAvailable, type DialectName } from '../../helpers/databases.js';
import { figure, report, scaled } from '../support/load.js';
import { CountingSubscriber, rssBytes, serialWriter, stalledSubscriber, startNodes } from '../support/nodes.js';

/**
 * Subscribers that open the live stream and never read a byte: the node must not buffer
 * what it owes them. The writer produces far more than the growth allowed below (bytes owed
 * = stalled clients × events × event size), and the node's RSS stays flat; a reading
 * subscriber alongside still gets every event. At full scale a stalled stream is cut once
 * MAX_QUEUED_FRAMES wait for it (src/http/routes/live.ts); at CI scale none is.
 */
const STALLED = scaled(250, 500);
const WRITES = scaled(300, 2000);
/** allowed RSS growth: far below what the node would hold if it buffered for the stalled clients */
const GROWTH_LIMIT = 24 * 1024 * 1024;
const TITLE = 'x'.repeat(80);

/** The node's open live streams (its `warrant_sse_clients` gauge). */
async function sseClients(url: string, token: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const value = /^warrant_sse_clients (\d+)$/m.exec(text)?.[1];
  if (value === undefined) throw new Error(`no warrant_sse_clients in /metrics:\n${text.slice(0, 500)}`);
  return Number(value);
}

// CI runs SQLite only (the fan-out is the same code on both; the machine has 2 cores); full runs both
describe.each<DialectName>(scaled<DialectName[]>(['sqlite'], ['sqlite', 'postgres']))('%s: stalled SSE readers', (dialect) => {
  it.skipIf(dialect === 'postgres' && !pgAvailable())(`${STALLED} clients that never read: RSS stays flat over ${WRITES} writes`, async () => {
    const { nodes, stop } = await startNodes(dialect);
    const node = nodes[0]!;
    const stalled = Array.from({ length: STALLED }, () => stalledSubscriber(node.url, node.fleetKey));
    const reading = new CountingSubscriber(node.url, node.fleetKey);
    try {
      await reading.isReady;
      // every stalled client holds a stream before the count starts: a refused one would owe nothing
      for (let i = 0; i < 300 && (await sseClients(node.url, node.fleetKey)) < STALLED + 1; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await sseClients(node.url, node.fleetKey)).toBeGreaterThanOrEqual(STALLED + 1);
      // warm up: the node's caches and pools at their working size, stalled buffers filled
      await serialWriter(
        node.url,
        node.fleetKey,
        (n) => n < 100,
        (n) => `${TITLE} ${n}`,
      );
      const before = rssBytes(node.process.pid!);
      const bytesBefore = reading.bytes;
      const ids = await serialWriter(
        node.url,
        node.fleetKey,
        (n) => n < WRITES,
        (n) => `${TITLE} ${n}`,
      );
      const after = rssBytes(node.process.pid!);
      for (let i = 0; i < 600 && ids.some((id) => !reading.created.has(id)); i++) await new Promise((r) => setTimeout(r, 100));
      // what each stalled client is owed: what the reading one received meanwhile
      const owed = STALLED * (reading.bytes - bytesBefore);
      process.stdout.write(`stalled readers ${dialect}: RSS ${figure(before)} → ${figure(after)} bytes, ${figure(owed)} bytes owed\n`);
      expect(owed, 'the test owes the stalled clients more than the allowed growth').toBeGreaterThan(2 * GROWTH_LIMIT);
      expect(after - before, `RSS grew from ${figure(before)} to ${figure(after)} bytes`).toBeLessThan(GROWTH_LIMIT);
      expect(reading.failure).toBeNull();
      expect(ids.filter((id) => !reading.created.has(id))).toEqual([]);
      // shutting down with the stalled clients still connected: their streams are cut, exit 0
      reading.close();
      expect(await stop()).toEqual(nodes.map(() => 0));
      report(
        `stalled readers ${dialect}: ${figure(STALLED)} clients that never read, ${figure(WRITES)} writes (≥ ${figure(Math.round(owed / 1048576))} MiB owed), ` +
          `RSS ${figure(Math.round(before / 1048576))} → ${figure(Math.round(after / 1048576))} MiB, a reading client alongside missed 0 events; shutdown with them connected exits 0`,
      );
    } finally {
      reading.close();
      for (const s of stalled) s.destroy();
      await stop();
    }
  });
});
