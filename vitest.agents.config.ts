import { defineConfig } from 'vitest/config';

// `npm run test:agents`: the real Claude Code and Codex CLIs (installed by
// scripts/install-agent-clis.mjs) against a scripted model endpoint (docs/design/agent-clis.md),
// and Warrant's own tarball installed with `npm install -g`: real installs from npm, minutes each.
export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    pool: 'forks',
    // the machine has 2 cores: one agent CLI at a time
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results/agents.json' },
  },
});
