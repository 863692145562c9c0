import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, startServer, type ServerProcess } from '../helpers/server-process.js';

const AGENT = resolve(import.meta.dirname, '../../docs/examples/stand-in-agent.mjs');

describe('warrant run (docs/integrations.md) with the stand-in agent', () => {
  let server: ServerProcess;
  let humanToken: string;
  const dir = mkdtempSync(join(tmpdir(), 'warrant-run-'));
  const api = async (path: string, token = server.fleetKey) => {
    const r = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return r.json();
  };
  beforeAll(async () => {
    server = await startServer();
    const env = { WARRANT_DATA_DIR: server.dataDir };
    await runCli(['users', 'add', 'rita', '--name', 'Rita Runner'], { env });
    humanToken = JSON.parse((await runCli(['users', 'tokens', 'issue', 'rita', '--json'], { env })).stdout).token;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('nested three levels deep: every spawn edge and acting session is authenticated; children never inherit a human token or the fleet key', async () => {
    const envFile = join(dir, 'helper-env.json');
    const plan = { name: 'router', children: [{ name: 'worker', children: [{ name: 'helper', envFile }] }] };
    const r = await runCli(['run', '--title', 'router', '--agent-root', 'router', '--', process.execPath, AGENT, JSON.stringify(plan)], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: humanToken, WARRANT_CLI: CLI, SMUGGLED: server.fleetKey, WARRANT_FLEET_KEY: server.fleetKey },
    });
    expect(r.code, r.stderr).toBe(0);
    const childEnv = JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string>;
    expect(childEnv.WARRANT_TOKEN).toBeUndefined();
    expect(childEnv.WARRANT_FLEET_KEY).toBeUndefined();
    expect(childEnv.SMUGGLED).toBeUndefined();
    expect(JSON.stringify(childEnv)).not.toContain(humanToken);
    expect(JSON.stringify(childEnv)).not.toContain(server.fleetKey);
    expect(childEnv.WARRANT_SESSION_TOKEN).toMatch(/^wrt_s_/);
    expect(childEnv.WARRANT_URL).toBe(server.url);

    const helper = (await api(`/api/v1/sessions/${childEnv.WARRANT_SESSION_ID}`)).session;
    expect(helper.uid).toBe(childEnv.WARRANT_SESSION_UID);
    expect(helper).toMatchObject({ title: 'helper', parent_basis: 'authenticated', creator_basis: 'authenticated', status: 'stopped' });
    const worker = (await api(`/api/v1/sessions/${helper.parent_session_id}`)).session;
    expect(worker).toMatchObject({
      title: 'worker',
      parent_basis: 'authenticated',
      creator: { kind: 'session', ref: String(worker.parent_session_id) },
      creator_basis: 'authenticated',
    });
    const router = (await api(`/api/v1/sessions/${worker.parent_session_id}`)).session;
    expect(router).toMatchObject({
      title: 'router',
      parent_session_id: null,
      creator: { kind: 'human', ref: 'rita' },
      creator_basis: 'authenticated',
      genesis: 'cli',
    });
    // the human's cause travels down the authenticated spawns
    for (const s of [worker, helper])
      expect(s).toMatchObject({ cause: { kind: 'human', ref: 'rita' }, cause_basis: 'authenticated', genesis: 'cli', owner: 'rita' });
    // every acting session in the timelines is authenticated
    for (const s of [router, worker, helper]) {
      const events = (await api(`/api/v1/sessions/${s.id}/events`)).events as any[];
      for (const e of events.filter((x) => x.actor)) expect(e.actor.basis, `${s.title} ${e.type}`).toBe('authenticated');
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['created', 'attached', 'token_minted', 'exited']));
      // The runner reports `started` when the child starts, but the attach already made the session `running`:
      // docs/design/sessions.md's lifecycle table moves only `idle` → `running` on `started`, and a change with no effect records
      // nothing. So a run's runtime events are exactly one `exited` with the child's code, unattributed (docs/design/attribution.md).
      const runtime = events.filter((e) => ['started', 'idle', 'exited', 'error'].includes(e.type));
      expect(
        runtime.map((e) => e.type),
        s.title,
      ).toEqual(['exited']);
      expect(runtime[0].details).toMatchObject({ code: 0 });
      for (const e of runtime) expect([e.actor, e.cause, e.credential_id]).toEqual([null, null, null]);
    }
  });

  it('a child that exits 3 makes `warrant run` exit 3 and the session failed', async () => {
    const r = await runCli(['run', '--title', 'fails', '--', process.execPath, AGENT, JSON.stringify({ name: 'fails', exit: 3 })], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(r.code).toBe(3);
    const list = await api('/api/v1/sessions?q=fails');
    expect(list.sessions[0]).toMatchObject({ title: 'fails', status: 'failed' });
  });

  it('SIGTERM to `warrant run` reaches the child, whose exit code is returned', async () => {
    const signalFile = join(dir, 'signal.txt');
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--title', 'waits', '--', process.execPath, AGENT, JSON.stringify({ name: 'waits', waitForSignal: true, signalFile, exitOnSignal: 0 })],
      {
        env: { ...process.env, WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, WARRANT_SESSION_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    await new Promise<void>((ready) => child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && ready()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(signalFile) && readFileSync(signalFile, 'utf8')).toBe('SIGTERM');
    const s = (await api('/api/v1/sessions?q=waits')).sessions[0];
    expect(s.status).toBe('stopped');
  });

  it('--session attaches an existing pending session; an unstartable command reports error', async () => {
    const created = await fetch(`${server.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.fleetKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'waiting in pending' }),
    }).then((x) => x.json());
    const r = await runCli(['run', '--session', String(created.session.id), '--', process.execPath, AGENT, '{}'], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(r.code).toBe(0);
    expect((await api(`/api/v1/sessions/${created.session.id}`)).session).toMatchObject({ status: 'stopped', activation: 1 });
    const bad = await runCli(['run', '--title', 'no such binary', '--', '/nonexistent/agent'], {
      env: { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
    });
    expect(bad.code).toBe(127);
    expect(bad.stderr).toContain('could not start /nonexistent/agent');
    const s = (await api('/api/v1/sessions?q=no%20such%20binary')).sessions[0];
    expect(s.status).toBe('failed');
    // an unstartable command is an error event with its reason, never started or exited
    const events = (await api(`/api/v1/sessions/${s.id}/events`)).events as any[];
    const runtime = events.filter((e) => ['started', 'idle', 'exited', 'error'].includes(e.type));
    expect(runtime.map((e) => e.type)).toEqual(['error']);
    expect(runtime[0].details.reason).toContain('could not start /nonexistent/agent');
    expect([runtime[0].actor, runtime[0].cause]).toEqual([null, null]);
  });

  it('without a credential it refuses with a usage error', async () => {
    const r = await runCli(['run', '--', 'true'], { env: { WARRANT_URL: server.url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no credential');
  });
});

describe('warrant run and the inbox', () => {
  let server: ServerProcess;
  const dir = mkdtempSync(join(tmpdir(), 'warrant-run-inbox-'));
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  const post = async (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.fleetKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json());

  it('`warrant stop` on a running session ends its process: the stop becomes a signal, the session stopped', async () => {
    const signalFile = join(dir, 'stopped.txt');
    const child = spawn(
      process.execPath,
      [
        CLI,
        'run',
        '--title',
        'stop me',
        '--',
        process.execPath,
        AGENT,
        JSON.stringify({ name: 'stop me', waitForSignal: true, signalFile, exitOnSignal: 143 }),
      ],
      {
        env: { ...process.env, WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, WARRANT_SESSION_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    await new Promise<void>((ready) => child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && ready()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const list = await fetch(`${server.url}/api/v1/sessions?q=stop%20me`, { headers: { authorization: `Bearer ${server.fleetKey}` } }).then((r) => r.json());
    const id = list.sessions[0].id;
    const stop = await post(`/api/v1/sessions/${id}/stop`, {});
    expect(stop.changed).toBe(true);
    expect(await exited).toBe(143);
    expect(readFileSync(signalFile, 'utf8')).toBe('SIGTERM');
    const s = (await fetch(`${server.url}/api/v1/sessions/${id}`, { headers: { authorization: `Bearer ${server.fleetKey}` } }).then((r) => r.json())).session;
    expect(s.status).toBe('stopped');

    // resumed: the stop was the previous runtime's, so the new one is never sent it
    const { writeFileSync } = await import('node:fs');
    const lingers = join(dir, 'lingers.mjs');
    writeFileSync(lingers, `process.on('SIGTERM', () => process.exit(143)); setTimeout(() => process.exit(0), 3500);`);
    const resumed = spawn(process.execPath, [CLI, 'run', '--session', String(id), '--', process.execPath, lingers], {
      env: { ...process.env, WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, WARRANT_SESSION_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let resumedErr = '';
    resumed.stderr.on('data', (d: Buffer) => (resumedErr += d.toString()));
    const resumedExit = new Promise<number | null>((r) => resumed.once('exit', (code) => r(code)));
    // what the runner polls for holds nothing for the new activation
    for (;;) {
      const now = (await fetch(`${server.url}/api/v1/sessions/${id}`, { headers: { authorization: `Bearer ${server.fleetKey}` } }).then((r) => r.json()))
        .session;
      if (now.activation === 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const control = await fetch(`${server.url}/api/v1/sessions/${id}/inbox?kind=control&state=pending,leased`, {
      headers: { authorization: `Bearer ${server.fleetKey}` },
    }).then((r) => r.json());
    expect(control.items).toEqual([]);
    expect(await resumedExit, resumedErr).toBe(0);
    expect(resumedErr).not.toContain('stop requested');
  });

  it("--inbox writes items in Claude Code stream-json; only the one the agent's prompt hook reported is delivered", async () => {
    const out = join(dir, 'stdin.jsonl');
    const script = join(dir, 'stream-json-agent.mjs');
    const hook = resolve(import.meta.dirname, '../../dist/hook/hook-main.cjs');
    const { writeFileSync } = await import('node:fs');
    // A stand-in for `claude -p --input-format stream-json`: it takes "first" (its prompt hook
    // reports it through the runner socket, as Claude Code's UserPromptSubmit does), ignores
    // "ignored", and ends on "last".
    writeFileSync(
      script,
      `import { appendFileSync } from 'node:fs';
       import { execFileSync } from 'node:child_process';
       import { createInterface } from 'node:readline';
       process.stdout.write('ready\\n');
       const rl = createInterface({ input: process.stdin });
       rl.on('line', (line) => {
         appendFileSync(${JSON.stringify(out)}, line + '\\n');
         const text = JSON.parse(line).message.content[0].text;
         if (text === 'ignored') return;
         execFileSync(process.execPath, [${JSON.stringify(hook)}, 'claude-code'], { input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'conv-stream', prompt: text + '\\r\\n' }) });
         if (text === 'last') setTimeout(() => process.exit(0), 50);
       });`,
    );
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--title', 'reads stream-json', '--inbox', '--provider', 'claude-code', '--', process.execPath, script],
      {
        env: { ...process.env, WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, WARRANT_SESSION_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    await new Promise<void>((ready) => child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && ready()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const list = await fetch(`${server.url}/api/v1/sessions?q=reads%20stream-json`, { headers: { authorization: `Bearer ${server.fleetKey}` } }).then((r) =>
      r.json(),
    );
    const id = list.sessions[0].id;
    await post(`/api/v1/sessions/${id}/follow_up`, { content: 'first' });
    await post(`/api/v1/sessions/${id}/follow_up`, { content: 'ignored' });
    await post(`/api/v1/sessions/${id}/follow_up`, { content: 'last' });
    expect(await exited).toBe(0);
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.type, l.message.role, l.message.content[0].text])).toEqual([
      ['user', 'user', 'first'],
      ['user', 'user', 'ignored'],
      ['user', 'user', 'last'],
    ]);
    const inbox = await fetch(`${server.url}/api/v1/sessions/${id}/inbox?state=all`, { headers: { authorization: `Bearer ${server.fleetKey}` } }).then((r) =>
      r.json(),
    );
    // written is not delivered: the item nobody reported taking stays written (then undelivered)
    expect(inbox.items.map((i: any) => [i.frame?.text ?? i.content, i.state])).toEqual([
      ['first', 'delivered'],
      ['ignored', 'written'],
      ['last', 'delivered'],
    ]);
  });
});
