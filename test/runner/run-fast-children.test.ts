import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, startServer, type ServerProcess } from '../helpers/server-process.js';

/**
 * `warrant run` with children that end before any report lands, the host boundary of the
 * child's environment, and the host CLI refusing inside a session.
 */
describe('warrant run: fast children, the environment boundary, the host CLI inside a session', () => {
  let server: ServerProcess;
  let humanToken: string;
  const dir = mkdtempSync(join(tmpdir(), 'warrant-run-fast-'));
  const api = async (path: string) => {
    const r = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.fleetKey}` } });
    return r.json();
  };
  const runtimeEvents = async (id: number) =>
    ((await api(`/api/v1/sessions/${id}/events`)).events as any[]).filter((e) => ['started', 'idle', 'exited', 'error'].includes(e.type));
  const sessionTitled = async (title: string) => (await api(`/api/v1/sessions?q=${encodeURIComponent(title)}`)).sessions.find((s: any) => s.title === title);

  beforeAll(async () => {
    server = await startServer();
    const env = { WARRANT_DATA_DIR: server.dataDir };
    await runCli(['users', 'add', 'fay', '--name', 'Fay Fast'], { env });
    humanToken = JSON.parse((await runCli(['users', 'tokens', 'issue', 'fay', '--json'], { env })).stdout).token;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("`sh -c 'exit 3'` exits 3 and the session ends failed with code 3, ten times in a row", async () => {
    for (let i = 0; i < 10; i++) {
      const title = `exit three ${i}`;
      const r = await runCli(['run', '--title', title, '--', 'sh', '-c', 'exit 3'], { env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey } });
      expect(r.code, r.stderr).toBe(3);
      const s = await sessionTitled(title);
      expect(s.status).toBe('failed');
      const runtime = await runtimeEvents(s.id);
      // a non-zero exit is the lifecycle's `error` event, carrying the code
      expect(runtime.map((e) => [e.type, e.details?.code])).toEqual([['error', 3]]);
    }
  });

  it('`true` exits 0 and its session is stopped; a missing binary is 127 with one error event', async () => {
    const ok = await runCli(['run', '--title', 'instant true', '--', 'true'], { env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey } });
    expect(ok.code, ok.stderr).toBe(0);
    const s = await sessionTitled('instant true');
    // started by a machine (no terminal on stdin): no terminal gap (the PTY test is the positive control)
    expect((await api(`/api/v1/sessions/${s.id}/warrant`)).gaps.map((g: any) => g.kind)).not.toContain('terminal-unwitnessed');
    expect(s.status).toBe('stopped');
    expect((await runtimeEvents(s.id)).map((e) => [e.type, e.details?.code])).toEqual([['exited', 0]]);

    const missing = await runCli(['run', '--title', 'missing binary', '--', 'no-such-agent-binary-here'], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(missing.code).toBe(127);
    const m = await sessionTitled('missing binary');
    expect(m.status).toBe('failed');
    expect((await runtimeEvents(m.id)).map((e) => e.type)).toEqual(['error']);
  });

  it('the child environment holds no store path, server secret, database URL, fleet key or foreign token — and keeps the rest', async () => {
    const envFile = join(dir, 'env.json');
    const dump = join(dir, 'dump-env.mjs');
    writeFileSync(dump, `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(envFile)}, JSON.stringify(process.env));`);
    const seeded = {
      WARRANT_URL: server.url,
      WARRANT_TOKEN: humanToken,
      WARRANT_FLEET_KEY: server.fleetKey,
      WARRANT_HUMAN_TOKEN: humanToken,
      WARRANT_DATA_DIR: server.dataDir,
      WARRANT_SERVER_SECRET: 'a-server-secret-value',
      WARRANT_SLACK_SIGNING_SECRET: 'a-slack-signing-secret',
      WARRANT_ADMIN_USER: 'fay',
      DATABASE_URL: 'postgres://root@127.0.0.1:5432/test',
      PGPASSWORD: 'pg-password',
      PGHOST: '127.0.0.1',
      SMUGGLED_UNDER_ANOTHER_NAME: server.fleetKey,
      UNRELATED_SETTING: 'kept',
    };
    const r = await runCli(['run', '--title', 'env dump', '--', process.execPath, dump], { env: seeded });
    expect(r.code, r.stderr).toBe(0);
    const childEnv = JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string>;
    // positive control: the session's own identity and unrelated variables do arrive
    expect(childEnv.UNRELATED_SETTING).toBe('kept');
    expect(childEnv.WARRANT_SESSION_TOKEN).toMatch(/^wrt_s_/);
    expect(childEnv.WARRANT_URL).toBe(server.url);
    expect(childEnv.WARRANT_RUNNER_SOCKET).toBeTruthy();
    expect(childEnv.WARRANT_CLI).toBe(CLI);
    for (const name of [
      'WARRANT_TOKEN',
      'WARRANT_FLEET_KEY',
      'WARRANT_HUMAN_TOKEN',
      'WARRANT_DATA_DIR',
      'WARRANT_SERVER_SECRET',
      'WARRANT_SLACK_SIGNING_SECRET',
      'WARRANT_ADMIN_USER',
      'DATABASE_URL',
      'PGPASSWORD',
      'PGHOST',
      'SMUGGLED_UNDER_ANOTHER_NAME',
    ]) {
      expect(childEnv[name], name).toBeUndefined();
    }
    const all = JSON.stringify(childEnv);
    for (const secret of [humanToken, server.fleetKey, server.dataDir, 'a-server-secret-value', 'a-slack-signing-secret', 'pg-password'])
      expect(all).not.toContain(secret);
  });

  it('the host CLI refuses to open the store inside an agent session (inside-agent-session, exit 2) and works outside it', async () => {
    const inside = await runCli(
      ['run', '--title', 'tries to mint', '--', process.execPath, CLI, 'users', 'tokens', 'issue', 'fay', '--data-dir', server.dataDir],
      {
        env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
      },
    );
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain('inside-agent-session');
    expect(inside.stdout).not.toMatch(/wrt_h_/);
    for (const args of [['users', 'list'], ['settings', 'get'], ['init'], ['keys', 'list']]) {
      const r = await runCli([...args, '--data-dir', server.dataDir], { env: { WARRANT_SESSION_TOKEN: 'wrt_s_anything_at_all_here' } });
      expect([r.code, r.stderr.includes('inside-agent-session')], args.join(' ')).toEqual([2, true]);
    }
    // positive control: the same command from the person's own shell works
    const outside = await runCli(['users', 'tokens', 'issue', 'fay', '--json', '--data-dir', server.dataDir]);
    expect(outside.code, outside.stderr).toBe(0);
    expect(JSON.parse(outside.stdout).token).toMatch(/^wrt_h_/);
  });

  it('warns when the data dir lies inside the agent working directory, and not when it lies outside', async () => {
    const project = mkdtempSync(join(tmpdir(), 'warrant-project-'));
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(project, '.warrant'));
    const inside = await runCli(['run', '--title', 'store inside', '--', 'true'], {
      cwd: project,
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(inside.code, inside.stderr).toBe(0);
    expect(inside.stderr).toContain(`data dir ${join(project, '.warrant')} lies inside the agent's working directory`);
    const outside = await runCli(['run', '--title', 'store outside', '--', 'true'], {
      cwd: project,
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, WARRANT_DATA_DIR: server.dataDir },
    });
    expect(outside.code, outside.stderr).toBe(0);
    expect(outside.stderr).not.toContain('lies inside');
  });

  it('--inbox with a provider the runner cannot speak to is refused at start, and nothing is created', async () => {
    const r = await runCli(['run', '--title', 'unsupported inbox', '--inbox', '--provider', 'codex', '--', 'true'], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unsupported-provider');
    expect(await sessionTitled('unsupported inbox')).toBeUndefined();
    const unknown = await runCli(['run', '--title', 'unknown inbox', '--inbox', '--', 'cat'], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unsupported-provider');
  });
});
