import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readlinkSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linkCommand, staleBecause, writeStamp } from '../../scripts/start-steps.mjs';
import { startServer } from '../helpers/server-process.js';

/** `npm start`: builds only when dist/ is stale and says so, puts `warrant` on PATH, serves (README quick start). */
const ROOT = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'warrant-start-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm start', () => {
  it('knows when dist/ is current: no build, a build, then a source changed after it', () => {
    const tree = join(scratch, 'tree');
    mkdirSync(join(tree, 'src'), { recursive: true });
    writeFileSync(join(tree, 'src', 'a.ts'), 'export {};\n');
    expect(staleBecause(tree)).toBe('no build yet');
    mkdirSync(join(tree, 'dist', 'cli'), { recursive: true });
    writeFileSync(join(tree, 'dist', 'cli', 'main.js'), '');
    writeStamp(tree);
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(tree, 'src', 'a.ts'), past, past);
    utimesSync(join(tree, 'src'), past, past);
    expect(staleBecause(tree)).toBeNull();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(tree, 'src', 'a.ts'), later, later);
    expect(staleBecause(tree)).toBe('src changed since the last build');
  });

  it('links `warrant` into the bin directory, so a new shell finds it; never replaces another warrant', () => {
    const bin = join(scratch, 'bin');
    const PATH = `${bin}:${process.env.PATH}`;
    const said = linkCommand(ROOT, { PATH, WARRANT_BIN_DIR: bin });
    expect(said).toMatch(/is now on PATH/);
    expect(readlinkSync(join(bin, 'warrant'))).toBe(join(ROOT, 'dist', 'cli', 'main.js'));
    // a new shell, with only PATH to go by
    expect(execFileSync('sh', ['-c', 'warrant --version'], { env: { PATH, HOME: scratch }, encoding: 'utf8' }).trim()).toBe('0.1.0');
    expect(linkCommand(ROOT, { PATH, WARRANT_BIN_DIR: bin })).toMatch(/is on PATH/);

    const otherBin = join(scratch, 'other-bin');
    mkdirSync(otherBin);
    writeFileSync(join(otherBin, 'warrant'), '#!/bin/sh\necho other\n', { mode: 0o755 });
    const theirs = linkCommand(ROOT, { PATH: `${otherBin}:${process.env.PATH}`, WARRANT_BIN_DIR: join(scratch, 'unused') });
    expect(theirs).toMatch(/not this checkout; left as it is/);
    expect(execFileSync(join(otherBin, 'warrant'), { encoding: 'utf8' })).toBe('other\n');
  });

  it('serves after saying the build is current, with `warrant` on PATH', async () => {
    const bin = join(scratch, 'start-bin');
    const server = await startServer({ entry: [join(ROOT, 'scripts', 'start.mjs')], env: { WARRANT_BIN_DIR: bin, PATH: `${bin}:${process.env.PATH}` } });
    try {
      const health = await fetch(`${server.url}/api/v1/health`);
      expect(health.status).toBe(200);
      expect(server.output()).toContain('warrant: the build is current');
      expect(server.output()).not.toContain('warrant: building');
      expect(server.output()).toMatch(/`warrant` is now on PATH/);
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
    }
  });
});
