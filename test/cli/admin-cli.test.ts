import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServer, type ServerProcess } from '../helpers/server-process.js';

/** docs/design/surfaces.md "CLI": `warrant init`, `WARRANT_FLEET_KEY` for `serve`, and the roster's admin verbs — the built binary. */
describe('warrant init, then serve on the same data dir', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'warrant-init-'));
  const dataDir = join(cwd, 'data');
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('creates the data dir, the admin roster row and a fleet key; a second init reuses them; serve then uses that key and counts the admin', async () => {
    const first = await runCli(['init', '--admin', 'root-admin', '--name', 'Root Admin', '--data-dir', dataDir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`Data dir: ${dataDir}`);
    expect(first.stdout).toContain('Admin: root-admin (Root Admin)');
    expect(first.stdout).toContain(`Fleet key (new), in ${join(dataDir, 'fleet-key')}:`);
    const key = readFileSync(join(dataDir, 'fleet-key'), 'utf8').trim();
    expect(key).toMatch(/^wrt_f_/);
    expect(first.stdout).toContain(`  ${key}`);

    const again = await runCli(['init', '--admin', 'root-admin', '--data-dir', dataDir]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`Fleet key, in ${join(dataDir, 'fleet-key')}:`);
    expect(again.stdout).toContain(`  ${key}`);
    const users = JSON.parse((await runCli(['users', 'list', '--json', '--data-dir', dataDir])).stdout).users;
    expect(users.filter((u: any) => u.key === 'root-admin')).toEqual([expect.objectContaining({ display_name: 'Root Admin', is_admin: true })]);

    const server = await startServer({ cwd, dataDir });
    try {
      expect(server.fleetKey).toBe(key);
      expect(server.output()).toContain(`Fleet key: ${join(dataDir, 'fleet-key')}`);
      expect(server.output()).not.toContain('Fleet key created');
      // the single admin resolves, so the web UI channel is instrumented
      expect(server.output()).toMatch(/Recording what people ask on: web UI \(single-admin mode; the admin key root-admin resolves to a roster row\)/);
      const r = await fetch(`${server.url}/api/v1/sessions`, { headers: { authorization: `Bearer ${key}` } });
      expect(r.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('warrant init on a store that already has an admin', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'warrant-reinit-'));
  const dataDir = join(cwd, 'data');
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('keeps the admin when run again by another login name, refuses a different --admin, and replaces it only with --replace-admin (audited)', async () => {
    const first = await runCli(['init', '--data-dir', dataDir], { env: { WARRANT_ADMIN_USER: 'alice' } });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Admin: alice (');
    // another person runs init on the same store: the admin stays, and the output says so
    const second = await runCli(['init', '--data-dir', dataDir], { env: { WARRANT_ADMIN_USER: 'mallory' } });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/Admin: alice \(.*\) — this store already has an admin; kept/);
    const named = await runCli(['init', '--admin', 'bob', '--data-dir', dataDir]);
    expect(named.code).not.toBe(0);
    expect(named.stderr).toContain("This store's admin is alice; init does not replace an admin");
    const settingOf = async () => JSON.parse((await runCli(['settings', 'get', 'admin_user', '--json', '--data-dir', dataDir])).stdout);
    expect(await settingOf()).toMatchObject({ setting: { value: 'alice' } });

    const replaced = await runCli(['init', '--admin', 'bob', '--replace-admin', '--data-dir', dataDir]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain('Admin: bob (bob) — replaced alice');
    expect(await settingOf()).toMatchObject({ setting: { value: 'bob' } });
    const exported = await runCli(['audit', 'export', '--data-dir', dataDir]);
    expect(exported.code, exported.stderr).toBe(0);
    const entries = exported.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(JSON.parse(l).entry));
    expect(entries.filter((e) => e.kind === 'setting_changed')).toEqual([expect.objectContaining({ key: 'admin_user', action: 'set', value: 'bob' })]);
    // web capture is credited to the new admin from this change on: a coverage change, after the setting's
    const setAt = entries.findIndex((e) => e.kind === 'setting_changed');
    const web = entries.filter((e, i) => e.kind === 'coverage_changed' && e.channel === 'web_ui' && i > setAt);
    expect(web).toEqual([expect.objectContaining({ instrumented: true, reason: expect.stringContaining('admin key bob ') })]);
  });
});

describe("the deployment mode is the store's", () => {
  const cwd = mkdtempSync(join(tmpdir(), 'warrant-mode-'));
  const dataDir = join(cwd, 'data');
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('the first start records it; every later node and the host CLI read it, and one given another mode refuses to start (exit 2)', async () => {
    const init = await runCli(['init', '--admin', 'mode-admin', '--data-dir', dataDir], { env: { WARRANT_MODE: 'multi-user' } });
    expect(init.code, init.stderr).toBe(0);
    // a node with no WARRANT_MODE takes the store's
    const server = await startServer({ cwd, dataDir });
    try {
      expect(server.output()).toContain('Mode: multi-user');
    } finally {
      await server.stop();
    }
    // a node, or the host CLI, told otherwise refuses, naming both and the fix
    for (const args of [
      ['serve', '--port', '0', '--data-dir', dataDir],
      ['users', 'list', '--data-dir', dataDir],
    ]) {
      const refused = await runCli(args, { env: { WARRANT_MODE: 'single-admin' } });
      expect(refused.code, `${args[0]}: ${refused.stderr}`).toBe(2);
      expect(refused.stderr).toContain("WARRANT_MODE (or --mode) says single-admin, but this store's deployment mode is multi-user");
    }
    const setting = JSON.parse((await runCli(['settings', 'get', 'deployment_mode', '--json', '--data-dir', dataDir])).stdout);
    expect(setting).toMatchObject({ setting: { value: 'multi-user' } });
  });
});

describe('WARRANT_FLEET_KEY', () => {
  const supplied = `wrt_f_${randomBytes(24).toString('base64url')}`;
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ env: { WARRANT_FLEET_KEY: supplied } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is accepted by serve, in addition to the key in the data dir; other keys are not', async () => {
    const as = (token: string) =>
      fetch(`${server.url}/api/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'fleet made' }),
      });
    const made = await as(supplied);
    expect(made.status).toBe(201);
    expect((await made.json()).session.creator).toBeNull();
    expect((await as(server.fleetKey)).status).toBe(201);
    expect(server.fleetKey).not.toBe(supplied);
    expect(server.output()).not.toContain(supplied);
    expect((await as(`wrt_f_${randomBytes(24).toString('base64url')}`)).status).toBe(401);
  });

  it('a malformed WARRANT_FLEET_KEY is a configuration error (exit 2), not a silently ignored key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warrant-badkey-'));
    try {
      const r = await runCli(['serve', '--port', '0'], { env: { WARRANT_DATA_DIR: join(dir, '.warrant'), WARRANT_FLEET_KEY: 'not-a-fleet-key' } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/fleet key/i);
      expect(existsSync(join(dir, '.warrant', 'fleet-key'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('warrant users edit, rename, tokens revoke (admin, direct store access)', () => {
  let server: ServerProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startServer();
    env = { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, WARRANT_DATA_DIR: server.dataDir };
  });
  afterAll(async () => {
    await server?.stop();
  });
  const api = (token: string, method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-warrant-client': 'cli' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  it('edit changes the fields it names and leaves the rest; --clear-slack empties the list', async () => {
    expect((await runCli(['users', 'add', 'grace', '--name', 'Grace', '--slack', 'U0GRACE', '--notes', 'old notes'], { env })).code).toBe(0);
    const edited = await runCli(['users', 'edit', 'grace', '--name', 'Grace Hopper', '--notes', 'Final say on compilers.', '--admin', 'yes', '--json'], {
      env,
    });
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout).user).toMatchObject({
      key: 'grace',
      display_name: 'Grace Hopper',
      notes: 'Final say on compilers.',
      is_admin: true,
      slack_user_ids: ['U0GRACE'],
    });
    const cleared = await runCli(['users', 'edit', 'grace', '--clear-slack', '--admin', 'no', '--json'], { env });
    expect(JSON.parse(cleared.stdout).user).toMatchObject({ display_name: 'Grace Hopper', slack_user_ids: [], is_admin: false });
    const listed = JSON.parse((await runCli(['users', 'list', '--json'], { env })).stdout).users.find((u: any) => u.key === 'grace');
    expect(listed).toMatchObject({ display_name: 'Grace Hopper', notes: 'Final say on compilers.', slack_user_ids: [] });
    const missing = await runCli(['users', 'edit', 'nobody-here', '--name', 'x'], { env });
    expect(missing.code).toBe(1);
  });

  it('rename keeps the person: records name the new key and still show the key they were captured under', async () => {
    expect((await runCli(['users', 'add', 'linus', '--name', 'Linus'], { env })).code).toBe(0);
    const token = JSON.parse((await runCli(['users', 'tokens', 'issue', 'linus', '--json'], { env })).stdout).token as string;
    const created = await (await api(token, 'POST', '/api/v1/sessions', { title: 'asked by linus', prompt: 'merge the window' })).json();
    const renamed = await runCli(['users', 'rename', 'linus', 'torvalds', '--json'], { env });
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout).user).toMatchObject({ key: 'torvalds', display_name: 'Linus' });
    const text = await runCli(['users', 'rename', 'torvalds', 'lt'], { env });
    expect(text.stdout).toContain('Renamed torvalds to lt. Nothing is orphaned');
    const prov = await (await api(server.fleetKey, 'GET', `/api/v1/sessions/${created.session.id}/provenance`)).json();
    expect(prov.human_messages.entries).toHaveLength(1);
    expect(JSON.stringify(prov.human_messages.entries[0])).toContain('"lt"');
    expect(JSON.stringify(prov.human_messages.entries[0])).toContain('"linus"');
    const md = await (await api(server.fleetKey, 'GET', `/api/v1/sessions/${created.session.id}/provenance?format=markdown`)).text();
    expect(md).toContain('Linus (lt, captured as linus)');
    // the old key names nobody now
    expect((await runCli(['users', 'edit', 'linus', '--name', 'x'], { env })).code).toBe(1);
  });

  it('tokens revoke: the human token stops working at once; the list shows it revoked', async () => {
    expect((await runCli(['users', 'add', 'barbara'], { env })).code).toBe(0);
    const issued = JSON.parse((await runCli(['users', 'tokens', 'issue', 'barbara', '--json'], { env })).stdout);
    expect((await api(issued.token, 'GET', '/api/v1/sessions')).status).toBe(200);
    const revoked = await runCli(['users', 'tokens', 'revoke', String(issued.credential_id)], { env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(`Revoked credential ${issued.credential_id}.`);
    const after = await api(issued.token, 'GET', '/api/v1/sessions');
    expect(after.status).toBe(401);
    const list = JSON.parse((await runCli(['users', 'tokens', 'list', 'barbara', '--json'], { env })).stdout).tokens;
    expect(list).toEqual([expect.objectContaining({ credential_id: issued.credential_id, user: 'barbara', revoked_at: expect.any(String) })]);
  });
});
