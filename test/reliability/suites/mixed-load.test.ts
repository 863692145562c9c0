import { describe, expect, it } from 'vitest';
import { pgAvailable, type DialectName } from '../../helpers/databases.js';
import { figure, mixedLoad, report, scaled } from '../support/load.js';
import { startNodes } from '../support/nodes.js';

/**
 * A period of mixed load (creates, renames, reads, lists on keep-alive connections) against
 * a node: zero errors — every answer the op's success, no refused or cut connection. The
 * throughput is printed, not asserted (the benchmark holds the targets: npm run bench).
 */
const SECONDS = scaled(10, 60);
const WORKERS = scaled(32, 64);

describe.each<DialectName>(['sqlite', 'postgres'])('%s: mixed load', (dialect) => {
  it.skipIf(dialect === 'postgres' && !pgAvailable())(`${WORKERS} workers for ${SECONDS} s: zero errors`, async () => {
    const { nodes, stop } = await startNodes(dialect);
    // on PostgreSQL the load goes to the first of two nodes
    try {
      const node = nodes[0]!;
      const load = mixedLoad(node.url, node.fleetKey, { workers: WORKERS, archive: true });
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      await load.stop();
      expect(load.unexpected).toEqual([]);
      expect(load.refusals.size).toBe(0);
      expect(load.transportErrors).toBe(0);
      expect(load.answered).toBeGreaterThan(0);
      report(
        `mixed load ${dialect}: ${WORKERS} workers for ${SECONDS} s, ${figure(load.answered)} requests (${figure(Math.round(load.answered / SECONDS))}/s), ${figure(load.acks.length)} acknowledged writes, 0 errors`,
      );
    } finally {
      expect(await stop()).toEqual(nodes.map(() => 0));
    }
  });
});
