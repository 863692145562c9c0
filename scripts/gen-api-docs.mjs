// Regenerates docs/api.md's REST route list and MCP tool list from the live catalogue (the
// served OpenAPI document and the tools both MCP surfaces list), between their markers:
//   node scripts/gen-api-docs.mjs
// It runs test/docs/api-lists.test.ts in write mode; without it, that test fails on drift.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const r = spawnSync(process.execPath, [resolve(root, 'node_modules/vitest/vitest.mjs'), 'run', 'test/docs/api-lists.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, WARRANT_WRITE_API_DOCS: '1' },
});
process.exit(r.status ?? 1);
