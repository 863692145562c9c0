import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServer, type ServerProcess } from '../helpers/server-process.js';

describe('the warrant CLI against a real server (built binary)', () => {
  let server: ServerProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startServer();
    env = { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, WARRANT_DATA_DIR: server.dataDir };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('prints the capture coverage at start', () => {
    // calm: what works, then each channel that is off with what turns it on
    expect(server.output()).toContain('Recording what people ask: no channel is on yet (REST, MCP, the CLI and the web UI work');
    expect(server.output()).toMatch(/ {2}web UI +no admin yet — `warrant init` \(you become the admin\), or the setup code below/);
    expect(server.output()).toMatch(/ {2}Slack +no Slack signing secret — `warrant settings set slack_signing_secret <secret>`/);
    expect(server.output()).toMatch(/ {2}CLI +nobody holds a human token yet — `warrant users tokens issue <key>`/);
    expect(server.output()).not.toMatch(/single-admin mode with no admin key/);
    expect(server.output()).not.toMatch(/NOT instrumented/);
    // the terminal is per run: witnessed only under `warrant run` with a human token and a TTY
    expect(server.output()).toContain('Terminal: `warrant run` with a human token on a TTY witnesses what is typed there;');
  });

  it('writes the fleet key to the data dir with mode 0600 and prints it once', () => {
    expect(server.output()).toContain('Fleet key created');
    expect(server.output()).toContain(server.fleetKey);
    expect(statSync(join(server.dataDir, 'fleet-key')).mode & 0o777).toBe(0o600);
  });

  it('`sessions show --json` prints the same session the REST API returns', async () => {
    const created = await fetch(`${server.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.fleetKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'shown by the CLI', prompt: 'hello' }),
    }).then((r) => r.json());
    const rest = await fetch(`${server.url}/api/v1/sessions/${created.session.id}`, { headers: { authorization: `Bearer ${server.fleetKey}` } }).then((r) =>
      r.json(),
    );
    const cli = await runCli(['sessions', 'show', String(created.session.id), '--json'], { env });
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(rest);
    const text = await runCli(['sessions', 'show', `#${created.session.id}`], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`#${created.session.id} shown by the CLI`);
    expect(text.stdout).toContain('genesis · class: api · priority');
  });

  it('lists sessions and runs the lifecycle verbs, naming itself via cli', async () => {
    const created = await runCli(['sessions', 'list', '--json'], { env });
    expect(created.code).toBe(0);
    expect(Array.isArray(JSON.parse(created.stdout).sessions)).toBe(true);
    const s = await fetch(`${server.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.fleetKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'lifecycle via cli' }),
    }).then((r) => r.json());
    const archived = await runCli(['archive', String(s.session.id)], { env });
    expect(archived.code).toBe(0);
    expect(archived.stdout).toContain(`Archived: #${s.session.id}`);
    const again = await runCli(['unarchive', String(s.session.id), '--json'], { env });
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: true, session: { status: 'stopped' } });
    const list = await runCli(['sessions', 'list', '--status', 'stopped'], { env });
    expect(list.stdout).toContain('lifecycle via cli');
  });

  it('exit codes: 0 on success and --help, 1 on a refusal, 2 on usage errors', async () => {
    expect((await runCli(['--help'])).code).toBe(0);
    expect((await runCli(['sessions', 'show', '--help'])).code).toBe(0);
    const unknown = await runCli(['frobnicate'], { env });
    expect(unknown.code).toBe(2);
    const missingArg = await runCli(['sessions', 'show'], { env });
    expect(missingArg.code).toBe(2);
    const notFound = await runCli(['sessions', 'show', '999999'], { env });
    expect(notFound.code).toBe(1);
    expect(notFound.stderr).toContain('session-not-found');
    const noToken = await runCli(['sessions', 'list'], { env: { WARRANT_URL: server.url } });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('unauthenticated');
    const down = await runCli(['sessions', 'list'], { env: { WARRANT_URL: 'http://127.0.0.1:1', WARRANT_TOKEN: server.fleetKey } });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('server-unreachable');
  });

  it('admin commands open the store directly: users add, list, tokens issue; the human token then works', async () => {
    const add = await runCli(['users', 'add', 'ada', '--name', 'Ada Lovelace', '--slack', 'U01ADA', '--json'], { env });
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout).user).toMatchObject({ key: 'ada', display_name: 'Ada Lovelace', slack_user_ids: ['U01ADA'] });
    const clash = await runCli(['users', 'add', 'eve', '--slack', 'U01ADA'], { env });
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('slack-id-taken');
    const list = await runCli(['users', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout).users.map((u: any) => u.key)).toContain('ada');
    const issued = await runCli(['users', 'tokens', 'issue', 'ada', '--json'], { env });
    const token = JSON.parse(issued.stdout).token as string;
    expect(token).toMatch(/^wrt_h_/);
    const mine = await fetch(`${server.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-warrant-client': 'cli' },
      body: JSON.stringify({ title: "ada's" }),
    }).then((r) => r.json());
    expect(mine.session).toMatchObject({
      owner: 'ada',
      genesis: 'cli',
      creator: { kind: 'human', ref: 'ada', display_name: 'Ada Lovelace' },
      creator_basis: 'authenticated',
    });
    const tokens = await runCli(['users', 'tokens', 'list', 'ada', '--json'], { env });
    expect(JSON.parse(tokens.stdout).tokens).toHaveLength(1);
    expect(tokens.stdout).not.toContain(token);
  });
});

describe('`npm start` defaults', () => {
  it('serves /api/v1/health on 127.0.0.1:7420 with a SQLite file under ./.warrant/', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'warrant-start-'));
    const server = await startServer({ cwd, args: [], dataDir: join(cwd, '.warrant'), env: { WARRANT_DATA_DIR: '' } });
    try {
      expect(server.url).toBe('http://127.0.0.1:7420');
      const health = await fetch('http://127.0.0.1:7420/api/v1/health').then((r) => r.json());
      expect(health).toEqual({ status: 'ok', store: 'ok' });
      expect(existsSync(join(cwd, '.warrant', 'warrant.db'))).toBe(true);
      expect(server.output()).toContain(`Store: SQLite ${join(cwd, '.warrant', 'warrant.db')}`);
    } finally {
      await server.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('refuses to bind beyond loopback without TLS or --insecure-bind (bad configuration: exit 2)', async () => {
    const r = await runCli(['serve', '--host', '0.0.0.0', '--port', '0'], { env: { WARRANT_DATA_DIR: mkdtempSync(join(tmpdir(), 'warrant-bind-')) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Refusing to bind to 0.0.0.0 without TLS');
  });

  it('reports bad configuration clearly, with exit code 2', async () => {
    const r = await runCli(['serve'], { env: { WARRANT_PORT: 'lots', WARRANT_DATA_DIR: mkdtempSync(join(tmpdir(), 'warrant-cfg-')) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('WARRANT_PORT: "lots" must be a port number from 0 to 65535');
    // a flag is named as the flag the person typed
    const flag = await runCli(['serve', '--port', 'notaport'], { env: { WARRANT_DATA_DIR: mkdtempSync(join(tmpdir(), 'warrant-cfg-')) } });
    expect([flag.code, flag.stderr]).toEqual([2, 'Invalid configuration:\n  --port: "notaport" must be a port number from 0 to 65535 (0 picks a free one)\n']);
    // a bad secret is refused without being echoed back
    const secret = await runCli(['serve'], { env: { WARRANT_SERVER_SECRET: 'not-hex-at-all', WARRANT_DATA_DIR: mkdtempSync(join(tmpdir(), 'warrant-cfg-')) } });
    expect(secret.code).toBe(2);
    expect(secret.stderr).toContain('WARRANT_SERVER_SECRET: the value given must be');
    expect(secret.stderr).not.toContain('not-hex-at-all');
  });
});
