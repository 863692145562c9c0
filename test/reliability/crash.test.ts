import { describe, it } from 'vitest';
import { pgAvailable } from '../helpers/databases.js';
import { killUnderLoad } from './support/crash.js';

/**
 * Crash safety (docs/operations.md, "Reliability"): one kill -9 under mixed write load per
 * backend; every acknowledged write survives, events and changes agree, the audit chain
 * verifies. `npm run test:reliability` repeats it many times (suites/kill-9.test.ts).
 */
describe('crash safety (kill -9 under write load)', () => {
  it('on SQLite: acknowledged writes survive, events and changes agree, the chain verifies', async () => {
    await killUnderLoad('sqlite', { kills: 1, acksPerRound: 150, workers: 8 });
  });
  it.skipIf(!pgAvailable())('on PostgreSQL: acknowledged writes survive, events and changes agree, the chain verifies', async () => {
    await killUnderLoad('postgres', { kills: 1, acksPerRound: 150, workers: 8 });
  });
});
