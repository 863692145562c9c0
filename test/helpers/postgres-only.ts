import { afterAll, beforeAll, describe } from 'vitest';
import { pgAvailable } from './databases.js';
import { openHarness, type Harness, type HarnessOptions } from './harness.js';

/**
 * A suite whose point is PostgreSQL-specific (several API nodes, a real connection pool).
 * Skipped — reported as skipped, never passed — only when no server answers outside CI.
 */
export function describePostgres(name: string, body: (harness: () => Harness) => void, options: HarnessOptions = {}): void {
  describe.skipIf(!pgAvailable())(`${name} [postgres]`, () => {
    let harness: Harness | undefined;
    beforeAll(async () => {
      harness = await openHarness('postgres', options);
    });
    afterAll(async () => {
      await harness?.close();
    });
    body(() => {
      if (!harness) throw new Error('harness not open');
      return harness;
    });
  });
}
