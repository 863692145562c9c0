import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

/**
 * The README's install as a command: `npm pack`, `npm install -g` of the tarball (into a scratch
 * prefix, from the npm registry like a user's machine; the native modules build there), then
 * `warrant serve` from an empty directory with its data in ./.warrant. It runs with the real agent
 * CLIs (vitest.agents.config.ts): both are real installs from npm and take minutes.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'warrant-tarball-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('npm pack + npm install -g installs a `warrant` that serves /api/v1/health from an empty directory', async () => {
  execFileSync('npm', ['pack', '--pack-destination', scratch], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(scratch).find((f) => /^warrant-.*\.tgz$/.test(f));
  expect(tarball).toBeDefined();
  const listing = execFileSync('tar', ['tzf', join(scratch, tarball!)], { encoding: 'utf8' });
  expect(listing).toContain('package/dist/cli/main.js');
  expect(listing).not.toContain('package/test/');

  const prefix = join(scratch, 'prefix');
  execFileSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', join(scratch, tarball!)], { stdio: ['ignore', 'ignore', 'inherit'] });
  const bin = join(prefix, 'bin', 'warrant');
  expect(existsSync(bin)).toBe(true);
  expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe('0.1.0');

  const empty = join(scratch, 'anywhere');
  execFileSync('mkdir', ['-p', empty]);
  const env = { PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, HOME: scratch, WARRANT_LOG_LEVEL: 'warn' };
  const child = spawn('warrant', ['serve', '--port', '0'], { cwd: empty, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (out += d));
  try {
    const url = await new Promise<string>((ok, fail) => {
      child.stdout.on('data', () => {
        const m = /Warrant listening on (http\S+)/.exec(out);
        if (m) ok(m[1]!);
      });
      child.once('exit', (code) => fail(new Error(`serve exited ${code}:\n${out}`)));
    });
    const health = await fetch(`${url}/api/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    expect(statSync(join(empty, '.warrant', 'warrant.db')).isFile()).toBe(true);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}, 1_500_000);
