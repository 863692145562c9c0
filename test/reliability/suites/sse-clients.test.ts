import { describe, expect, it } from 'vitest';
import { pgAvailable, type DialectName } from '../../helpers/databases.js';
import { figure, report, scaled, until } from '../support/load.js';
import { CountingSubscriber, serialWriter, startNodes } from '../support/nodes.js';

/**
 * Many live subscribers held for a period while a writer creates sessions — on PostgreSQL
 * the writer is on the other node, so every event crosses nodes (LISTEN/NOTIFY). Every
 * subscriber must see every acknowledged create, and no stream may end: 0 drops.
 */
const CLIENTS = scaled(100, 1000);
const SECONDS = scaled(5, 60);

describe.each<DialectName>(['sqlite', 'postgres'])('%s: many SSE clients, a writer, 0 drops', (dialect) => {
  it.skipIf(dialect === 'postgres' && !pgAvailable())(`${CLIENTS} clients for ${SECONDS} s`, async () => {
    const { nodes, stop } = await startNodes(dialect);
    const subscribers: CountingSubscriber[] = [];
    try {
      const reader = nodes[0]!;
      const writer = nodes[nodes.length - 1]!;
      for (let i = 0; i < CLIENTS; i += 100) {
        const batch = Array.from({ length: Math.min(100, CLIENTS - i) }, () => new CountingSubscriber(reader.url, reader.fleetKey));
        subscribers.push(...batch);
        await Promise.all(batch.map((s) => s.isReady));
      }
      expect(subscribers.filter((s) => s.failure !== null).map((s) => s.failure)).toEqual([]);
      const until_ = Date.now() + SECONDS * 1000;
      const ids = await serialWriter(writer.url, writer.fleetKey, () => Date.now() < until_);
      // every subscriber receives every create (a hang guard, not a timing assertion)
      await until(() => subscribers.every((s) => s.failure !== null || ids.every((id) => s.created.has(id))), 120_000).catch(() => {});
      const drops = subscribers.reduce((sum, s) => sum + ids.filter((id) => !s.created.has(id)).length, 0);
      const ended = subscribers.filter((s) => s.failure !== null);
      expect(
        ended.map((s) => s.failure),
        'streams that ended',
      ).toEqual([]);
      expect(drops, 'creates some subscriber never saw').toBe(0);
      const delivered = subscribers.reduce((sum, s) => sum + s.events, 0);
      report(
        `sse ${dialect}: ${figure(CLIENTS)} clients for ${SECONDS} s${nodes.length > 1 ? ' on node A, writer on node B' : ', writer on the same node'}: ` +
          `${figure(ids.length)} creates, ${figure(delivered)} events delivered, 0 drops`,
      );
    } finally {
      for (const s of subscribers) s.close();
      await stop();
    }
  });
});
