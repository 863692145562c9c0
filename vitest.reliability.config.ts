import { defineConfig } from 'vitest/config';

// `npm run test:reliability`: kill -9 under load, barrier races across nodes and processes,
// many and stalled SSE clients, mixed load (docs/operations.md, "Reliability").
// RELIABILITY_SCALE=ci (the default, what .ci/run runs) or full (on demand). The quick
// per-landing checks (test/reliability/shutdown.test.ts, crash.test.ts) stay in the main suite.
export default defineConfig({
  test: {
    include: ['test/reliability/suites/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // each suite loads the machine (2 cores) by itself: one file at a time
    fileParallelism: false,
    testTimeout: process.env.RELIABILITY_SCALE === 'full' ? 1_800_000 : 240_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results/reliability.json' },
  },
});
