import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { runCli, storeArgs } from '../helpers/cli.js';
import { describeEachDialect } from '../helpers/harness.js';

/** docs/audit-log.md "Merkle tree and proofs": `warrant audit prove` from the store, `verify-proof` offline, as the built binary. */
vi.setConfig({ testTimeout: 240_000 });

describeEachDialect('warrant audit prove and verify-proof', (t) => {
  it('a proof verifies offline against the checkpoint and key (exit 0); a changed leaf, the wrong checkpoint or key fail (exit 1)', async () => {
    const h = t();
    const dir = mkdtempSync(join(tmpdir(), 'warrant-proof-'));
    const set = await runCli(['settings', 'set', 'checkpoint_key', 'generate', '--key-name', 'acme.example/warrant', '--json', ...storeArgs(h)]);
    const verifier = JSON.parse(set.stdout).setting.value as string;
    for (let i = 0; i < 3; i++) await h.create(h.fleetKey, { title: `s${i}` });
    const older = join(dir, 'older.note');
    expect((await runCli(['audit', 'checkpoint', '--out', older, ...storeArgs(h)])).code).toBe(0);
    for (let i = 0; i < 3; i++) await h.create(h.fleetKey, { title: `t${i}` });
    const newer = join(dir, 'newer.note');
    expect((await runCli(['audit', 'checkpoint', '--out', newer, ...storeArgs(h)])).code).toBe(0);
    const [olderSize, newerSize] = [older, newer].map((f) => Number(readFileSync(f, 'utf8').split('\n')[1]));

    const proof = join(dir, 'inclusion.json');
    const prove = await runCli(['audit', 'prove', '--seq', '2', '--out', proof, ...storeArgs(h)]);
    expect(prove.code).toBe(0);
    expect(prove.stdout).toContain(`audit entry seq 2 (leaf 1) is in the tree of ${newerSize} entries`);
    const ok = await runCli(['audit', 'verify-proof', '--proof', proof, '--checkpoint', newer, '--public-key', verifier, '--origin', 'acme.example/warrant']);
    expect(ok.stdout.trim()).toBe(
      `OK: entry 2 is in the tree of ${newerSize} entries of acme.example/warrant signed by acme.example/warrant (root ${JSON.parse(readFileSync(proof, 'utf8')).root_hash}).`,
    );
    expect(ok.code).toBe(0);

    const p = JSON.parse(readFileSync(proof, 'utf8'));
    const changed = join(dir, 'changed.json');
    writeFileSync(changed, JSON.stringify({ ...p, entry: p.entry.replace('"kind":"', '"kind":"x') }));
    const bad = await runCli(['audit', 'verify-proof', '--proof', changed, '--checkpoint', newer, '--public-key', verifier]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('FAILED: proof-does-not-verify');
    const wrongTree = await runCli(['audit', 'verify-proof', '--proof', proof, '--checkpoint', older, '--public-key', verifier]);
    expect(wrongTree.code).toBe(1);
    expect(wrongTree.stderr).toContain('proof-checkpoint-mismatch');
    const other = await runCli(['settings', 'set', 'checkpoint_key', 'generate', '--key-name', 'acme.example/warrant', '--json', ...storeArgs(h)]);
    const wrongKey = await runCli(['audit', 'verify-proof', '--proof', proof, '--checkpoint', newer, '--public-key', JSON.parse(other.stdout).setting.value]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('checkpoint-signature-invalid');

    // consistency between the two checkpoints, printed to stdout
    const c = await runCli(['audit', 'prove', '--from', String(olderSize), '--to', String(newerSize), ...storeArgs(h)]);
    expect(c.code).toBe(0);
    const consistency = join(dir, 'consistency.json');
    writeFileSync(consistency, c.stdout);
    const good = await runCli([
      'audit',
      'verify-proof',
      '--proof',
      consistency,
      '--checkpoint',
      older,
      '--checkpoint',
      newer,
      '--public-key',
      verifier,
      '--json',
    ]);
    expect(JSON.parse(good.stdout)).toMatchObject({ ok: true, kind: 'consistency', from: olderSize, to: newerSize });
    const beyond = await runCli(['audit', 'prove', '--seq', '1', '--tree-size', '100000', ...storeArgs(h)]);
    expect(beyond.code).not.toBe(0);
    expect(beyond.stderr).toContain('tree-size-beyond-log');
  });
});
