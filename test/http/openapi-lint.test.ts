import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { openHarness } from '../helpers/harness.js';

const root = resolve(import.meta.dirname, '../..');
const redocly = join(root, 'node_modules/.bin/redocly');

/**
 * The ecosystem's own validator (docs/api.md "OpenAPI"): the real `@redocly/cli lint`, with the
 * checked-in redocly.yaml, on the document the server serves: no error, no warning. Offline:
 * telemetry and update checks off, and nothing in the document or the config to fetch.
 */
it('redocly lint passes the served OpenAPI document with 0 errors and 0 warnings', async () => {
  const h = await openHarness('sqlite');
  const dir = mkdtempSync(join(tmpdir(), 'warrant-redocly-'));
  try {
    const res = await h.request('GET', '/api/v1/openapi.json', { token: null });
    expect(res.status).toBe(200);
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(res.body, null, 2));
    copyFileSync(join(root, 'redocly.yaml'), join(dir, 'redocly.yaml'));
    const r = spawnSync(redocly, ['lint', 'openapi.json', '--format=json', '--config=redocly.yaml'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', CI: 'true' },
    });
    expect(r.error).toBeUndefined();
    type Problem = { ruleId: string; message: string; location: { pointer: string }[] };
    const report = JSON.parse(r.stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] };
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} (at ${p.location.map((l) => l.pointer).join(', ')})`);
    expect(problems.join('\n')).toBe('');
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(r.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await h.close();
  }
}, 180_000);
