import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { expect, it, vi } from 'vitest';
import { auditHead } from '../../src/store/audit-repo.js';
import { CLI, listen, runCli, storeArgs } from '../helpers/cli.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';

/**
 * The admin CLI (docs/design/attribution.md, docs/design/surfaces.md) — `warrant audit verify|export|checkpoint`,
 * `warrant settings`, `warrant deletions list` — as the built binary.
 */
// each case runs the built binary several times; on a loaded 2-core machine a start takes
// seconds, so the hang guard is wider than the default (this is not a performance assertion)
vi.setConfig({ testTimeout: 240_000 });

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'warrant-cli-'));
}

/** Runs a command under a pseudo-terminal (util-linux `script`), to see what a person at a TTY sees. */
function runInTty(args: string[]): Promise<string> {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

describeEachDialect('the attribution CLI', (t) => {
  it('audit verify: exit 0 with a report; --json; a progress bar on a TTY, nothing on stderr in a pipe', async () => {
    const h = t();
    await h.create(h.fleetKey, { title: 'one' });
    const head = (await auditHead(h.store.kysely))!;
    const r = await runCli(['audit', 'verify', ...storeArgs(h)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`OK: the audit log (${h.store.label.split(' ')[0]}`);
    expect(r.stdout).toContain(`head seq ${head.seq}, hash ${head.hash}`);
    expect(r.stderr).toBe('');
    const j = await runCli(['audit', 'verify', '--json', ...storeArgs(h)]);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: true, entries: head.seq, broken: null });
    const tty = await runInTty(['audit', 'verify', ...storeArgs(h)]);
    expect(tty).toMatch(/verifying \[#+\] 100% /);
    expect(tty).toContain('OK: the audit log');
  });

  it('audit export streams JSON Lines that audit verify --file checks without any store', async () => {
    const h = t();
    await h.create(h.fleetKey, { title: 'exported' });
    const head = (await auditHead(h.store.kysely))!;
    const r = await runCli(['audit', 'export', ...storeArgs(h)]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(head.seq);
    expect(JSON.parse(lines[0]!)).toMatchObject({ schema_version: 1, seq: 1, prev_hash: '0'.repeat(64) });
    const dir = tmp();
    const file = join(dir, 'log.jsonl');
    expect((await runCli(['audit', 'export', '--out', file, ...storeArgs(h)])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(r.stdout);
    // no store flags at all: nothing but the file is read
    const v = await runCli(['audit', 'verify', '--file', file]);
    expect(v.code).toBe(0);
    expect(v.stdout).toContain(`${head.seq} entries`);
    expect((await runCli(['audit', 'verify', '--file', '-'], { input: r.stdout })).code).toBe(0);
    // an edited export fails, naming the seq
    const edited = lines.map((l, i) => (i === 1 ? l.replace('"kind', '"kind ') : l)).join('\n');
    const bad = await runCli(['audit', 'verify', '--file', '-'], { input: edited });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('breaks at seq 2');
    const junk = await runCli(['audit', 'verify', '--file', '-'], { input: 'not json\n' });
    expect(junk.code).toBe(1);
    expect(junk.stderr).toContain('invalid-export');
  });

  it('checkpoints: set a key, sign, export, and verify an export against the checkpoint with only the public key', async () => {
    const h = t();
    const set = await runCli(['settings', 'set', 'checkpoint_key', 'generate', '--key-name', 'cli-test', '--json', ...storeArgs(h)]);
    expect(set.code).toBe(0);
    const verifier = JSON.parse(set.stdout).setting.value as string;
    expect(verifier).toMatch(/^cli-test\+/);
    const dir = tmp();
    const cp = join(dir, 'checkpoint.note');
    const signed = await runCli(['audit', 'checkpoint', '--out', cp, ...storeArgs(h)]);
    expect(signed.code).toBe(0);
    // a C2SP tlog-checkpoint: origin (the key's name), tree size, base64 Merkle root
    expect(readFileSync(cp, 'utf8')).toMatch(/^cli-test\n\d+\n[A-Za-z0-9+/]{43}=\n\n— cli-test /);
    await h.create(h.fleetKey, { title: 'after the checkpoint' });
    const log = join(dir, 'log.jsonl');
    await runCli(['audit', 'export', '--out', log, ...storeArgs(h)]);

    const ok = await runCli(['audit', 'verify', '--file', log, '--checkpoint', cp, '--public-key', verifier]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/Checkpoint seq \d+ \(tree of cli-test, signed by cli-test\) matches/);
    // the latest one, exported again
    const latest = await runCli(['audit', 'checkpoint', '--latest', ...storeArgs(h)]);
    expect(latest.stdout.trim()).toBe(readFileSync(cp, 'utf8').trim());

    // a log cut before the checkpoint fails
    const cut = readFileSync(log, 'utf8').trim().split('\n').slice(0, 2).join('\n');
    const cutResult = await runCli(['audit', 'verify', '--file', '-', '--checkpoint', cp, '--public-key', verifier], { input: cut });
    expect(cutResult.code).toBe(1);
    expect(cutResult.stdout).toContain('CHECKPOINT MISMATCH');
    // another key, a forged note, or no key at all
    const other = await runCli(['settings', 'set', 'checkpoint_key', 'generate', '--key-name', 'cli-test', '--json', ...storeArgs(h)]);
    const wrongKey = await runCli(['audit', 'verify', '--file', log, '--checkpoint', cp, '--public-key', JSON.parse(other.stdout).setting.value]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('checkpoint-signature-invalid');
    const forged = join(dir, 'forged.note');
    writeFileSync(
      forged,
      readFileSync(cp, 'utf8').replace(/^cli-test\n(\d+)/, (_, n: string) => `cli-test\n${Number(n) - 1}`),
    );
    expect((await runCli(['audit', 'verify', '--file', log, '--checkpoint', forged, '--public-key', verifier])).code).toBe(1);
    const usage = await runCli(['audit', 'verify', '--file', log, '--checkpoint', cp]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--checkpoint needs --public-key');
  });

  it('settings get masks secrets, set validates with a token, unset restores the default', async () => {
    const h = t();
    const secret = 'Abcdef0123456789abcdef0123456789';
    expect((await runCli(['settings', 'set', 'slack_signing_secret', secret, ...storeArgs(h)])).code).toBe(0);
    const all = await runCli(['settings', 'get', ...storeArgs(h)]);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('slack_signing_secret: set (32 characters; hidden');
    expect(all.stdout).not.toContain(secret);
    expect((await runCli(['settings', 'get', 'slack_signing_secret', '--reveal', ...storeArgs(h)])).stdout).toContain(secret);
    const bad = await runCli(['settings', 'set', 'allowed_hosts', 'https://evil.example', ...storeArgs(h)]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: invalid-setting: allowed_hosts: /);
    const unknown = await runCli(['settings', 'get', 'colour', ...storeArgs(h)]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown-setting');
    const unset = await runCli(['settings', 'unset', 'slack_signing_secret', ...storeArgs(h)]);
    expect(unset.stdout).toContain('slack_signing_secret: (unset — none');
  });

  it('a store that is not there is an error, not a new empty store', async () => {
    t();
    const r = await runCli(['audit', 'verify', '--data-dir', join(tmp(), 'nothing-here')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no Warrant store at');
  });

  it('warrant delete writes a record via cli; warrant deletions list and sessions events read them from the server', async () => {
    const h = t();
    const key = uniqueKey('cli');
    const { token } = await h.human(key);
    const s = (await h.create(token, { title: 'deleted from the CLI' })).session;
    await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token, body: { starred: true } });
    const server = await listen(h);
    try {
      const env = { WARRANT_URL: server.url, WARRANT_TOKEN: token };
      const events = await runCli(['sessions', 'events', String(s.id)], { env });
      expect(events.code).toBe(0);
      expect(events.stdout).toContain(`## Timeline of #${s.id}`);
      expect(events.stdout).toContain(`**starred** — by ${key} (${key}) — authenticated; for ${key} (${key}) — authenticated`);
      const del = await runCli(['delete', String(s.id), '--yes'], { env });
      expect(del.code).toBe(0);
      const list = await runCli(['deletions', 'list', '--uid', s.uid, '--json'], { env });
      expect(JSON.parse(list.stdout).deletions).toEqual([
        expect.objectContaining({ session_uid: s.uid, via: 'cli', actor: expect.objectContaining({ kind: 'human', ref: key }) }),
      ]);
      const text = await runCli(['deletions', 'list', '--actor', key], { env });
      expect(text.stdout).toContain(`#${s.id} deleted from the CLI (uid ${s.uid})`);
      expect(text.stdout).toContain('via cli');
      const bad = await runCli(['deletions', 'list', '--actor', 'session:x'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('invalid-request');
    } finally {
      await server.close();
    }
  });
});

describeEachDialect('the CLI on a corrupted log', (t) => {
  it('audit verify names the first broken seq and exits 1', async () => {
    const h = t();
    for (let i = 0; i < 3; i++) await h.create(h.fleetKey, { title: `s${i}` });
    const db = h.store.kysely;
    for (const stmt of h.store.dropImmutableTriggersSql('audit_log')) await sql.raw(stmt).execute(db);
    const row = await db.selectFrom('audit_log').select(['seq', 'entry']).where('seq', '=', 3).executeTakeFirstOrThrow();
    await db
      .updateTable('audit_log')
      .set({ entry: row.entry.replace('"at":"', '"at":"1') })
      .where('seq', '=', 3)
      .execute();
    const r = await runCli(['audit', 'verify', ...storeArgs(h)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('breaks at seq 3: the stored hash does not match');
    expect(r.stdout).toContain('2 entries before it verify');
    const j = await runCli(['audit', 'verify', '--json', ...storeArgs(h)]);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout).broken).toMatchObject({ seq: 3, reason: 'hash-mismatch' });
  });
});
