import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { cli, listen } from '../helpers/cli.js';
import { insertUncle, spawn } from '../helpers/lineage.js';

describeEachDialect('CLI: warrant sessions tree and warrant provenance (built binary)', (t) => {
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    server = await listen(t());
  });
  afterAll(async () => {
    await server.close();
  });
  const env = () => ({ WARRANT_URL: server.url, WARRANT_TOKEN: t().fleetKey });

  it('prints the outline, the provenance, and their JSON', async () => {
    const h = t();
    const root = await spawn(h, null, { agent_root: 'router', title: 'Root' });
    const child = await spawn(h, root, { agent_root: 'worker', title: 'Child' });
    const other = await spawn(h, null, { title: 'Other' });
    await insertUncle(h, other, child, 'authenticated');

    const tree = await cli(['sessions', 'tree', `#${child}`], env());
    expect(tree).toMatchObject({ code: 0, stderr: '' });
    expect(tree.stdout).toBe(
      [
        `- #${root} [router] {api · priority} Root`,
        `  - #${child} [worker] {api · priority} Child (also senior: #${other}) ← this session`,
        `- #${other} {api · priority} Other`,
        '',
      ].join('\n'),
    );
    const treeJson = await cli(['sessions', 'tree', String(child), '--json'], env());
    expect(treeJson.code).toBe(0);
    expect(JSON.parse(treeJson.stdout)).toMatchObject({ origin_id: root, roots: [root, other], truncated: false, note: null });

    const prov = await cli(['provenance', String(child)], env());
    expect(prov.code).toBe(0);
    // the same outline as `sessions tree`, then the human-message section (docs/design/capture.md)
    expect(
      prov.stdout.startsWith(
        `# Provenance of #${child} Child\n\n## Session hierarchy\n\n${tree.stdout.trimEnd()}\n\n## Human messages\n\n0 in this session · 0 elsewhere in the hierarchy`,
      ),
    ).toBe(true);
    for (const args of [['--format', 'json'], ['--json']]) {
      const json = await cli(['provenance', String(child), ...args], env());
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ session_id: child, session_hierarchy: { origin_id: root } });
    }
  });

  it('fails clearly: unknown session (exit 1), bad format (exit 2)', async () => {
    const missing = await cli(['sessions', 'tree', '99999999'], env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: session-not-found: /);
    const prov = await cli(['provenance', '99999999'], env());
    expect(prov.code).toBe(1);
    expect(prov.stderr).toMatch(/session-not-found/);
    const usage = await cli(['provenance', '1', '--format', 'html'], env());
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/format/);
  });
});
