import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: end-to-end in headless Debian Chromium (never a downloaded browser),
 * against the real server on a real socket. One file at a time: a browser is heavy on 2 cores.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results/browser.json' },
  },
});
