import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, startServer, type ServerProcess } from '../helpers/server-process.js';
import { HOOK, openTerminal, WITNESS_TUI } from './witness-pty.js';

/**
 * The agent runs as the same OS user as its runner — an ordinary user, not root — and still
 * cannot read the human token or the witness credential out of the runner: not from its
 * environment block (the runner re-executed itself without them) and not from its memory (the
 * runner is non-dumpable, so /proc/<pid>/environ, mem and maps refuse the same user).
 */
describe('the agent cannot read the runner credentials as the same OS user', () => {
  // CI runs as root and must run this; elsewhere only root can create the user
  const canRun = process.getuid?.() === 0;
  let server: ServerProcess;
  let humanToken: string;
  beforeAll(async () => {
    if (!canRun) return;
    server = await startServer();
    const env = { WARRANT_DATA_DIR: server.dataDir };
    await runCli(['users', 'add', 'olga', '--name', 'Olga Otheruser'], { env });
    humanToken = JSON.parse((await runCli(['users', 'tokens', 'issue', 'olga', '--json'], { env })).stdout).token;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.skipIf(!canRun && !process.env.CI)(
    'environ, mem and maps of the runner are refused to the agent; its own are not (the control); a typed prompt is still witnessed, same-uid',
    async () => {
      expect(canRun, 'this test creates an OS user and needs root (CI runs as root)').toBe(true);
      const user = `wwit${process.pid}`;
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', user]);
      const dir = mkdtempSync(join(tmpdir(), 'warrant-witness-user-'));
      chmodSync(dir, 0o777);
      const probe = join(dir, 'probe.json');
      try {
        const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
        const env = {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: dir,
          LANG: 'C.UTF-8',
          TERM: 'xterm-256color',
          WARRANT_URL: server.url,
          WARRANT_TOKEN: humanToken,
          WITNESS_TUI_HOOK: HOOK,
          WITNESS_TUI_PROBE: probe,
        };
        const t = openTerminal(
          'runuser',
          ['-u', user, '--', process.execPath, CLI, 'run', '--title', 'as another user', '--', process.execPath, WITNESS_TUI],
          env,
          undefined,
          dir,
        );
        await t.until('ready');
        expect(t.text()).not.toContain('not witnessed');
        expect(existsSync(probe)).toBe(true);
        const seen = JSON.parse(readFileSync(probe, 'utf8'));
        // the probe ran as the unprivileged user, and its parent is the runner, as that user too
        expect(seen.uid).toBe(uid);
        expect(readFileSync(`/proc/${seen.ppid}/cmdline`, 'latin1')).toContain(`${CLI}\u0000run`);
        expect(readFileSync(`/proc/${seen.ppid}/status`, 'utf8')).toMatch(new RegExp(`^Uid:\\s+${uid}\\s`, 'm'));
        // the control: the same reads of its own process succeed
        expect(seen.ownEnviron.opened).toBe(true);
        expect(seen.ownEnviron.text).toContain('WARRANT_SESSION_TOKEN=wrt_s_');
        expect(seen.ownMem.opened).toBe(true);
        // the runner's are refused
        expect(seen.runnerEnviron).toEqual({ opened: false, code: 'EACCES' });
        expect(seen.runnerMem).toEqual({ opened: false, code: 'EACCES' });
        expect(seen.runnerMaps).toEqual({ opened: false, code: 'EACCES' });
        // and even root, who may read it, finds no credential in the runner's block; nor has the agent one of its own
        const environ = readFileSync(`/proc/${seen.ppid}/environ`, 'latin1');
        expect(environ).toContain('WARRANT_URL=');
        expect(environ).not.toContain(humanToken);
        expect(environ).not.toMatch(/wrt_[a-z]_/);
        expect(seen.ownEnviron.text).not.toContain(humanToken);
        expect(seen.ownEnviron.text).not.toMatch(/wrt_[fhct]_/);

        const from = t.text().length;
        t.type('hello from another user\r');
        await t.until('got: hello from another user', { from });
        t.type('\x04');
        expect(await t.exited).toBe(7);
        const list = await fetch(`${server.url}/api/v1/sessions?q=${encodeURIComponent('as another user')}`, {
          headers: { authorization: `Bearer ${server.fleetKey}` },
        });
        const session = (await list.json()).sessions[0];
        const prov = await fetch(`${server.url}/api/v1/sessions/${session.id}/provenance`, { headers: { authorization: `Bearer ${server.fleetKey}` } });
        const entries = (await prov.json()).human_messages.entries;
        expect(entries).toHaveLength(1);
        expect(entries[0]).toMatchObject({ entry_point: 'cli.terminal_prompt', content: 'hello from another user', witness_isolation: 'same-uid' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
        execFileSync('userdel', [user]);
      }
    },
  );
});
