import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, startServer, type CliResult, type ServerProcess } from '../helpers/server-process.js';

/**
 * `warrant doctor` from the agent's side, in scratch projects wired by `warrant integrate`
 * against a real server. Each fault test first shows the same project passing (its positive
 * control), then breaks one thing and expects that check — and only the checks that depend
 * on it — to fail, with a fix.
 */
describe('warrant doctor', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  interface Scratch {
    project: string;
    config: string;
    env: Record<string, string>;
    doctor(extra?: Record<string, string>, args?: string[]): Promise<CliResult>;
    edit(file: string, change: (json: any) => void): void;
  }

  /** A project integrated with --write, a Claude config dir that trusts it, the server's data dir outside it. */
  async function scratch(options: { trusted?: boolean; integrate?: string[] } = {}): Promise<Scratch> {
    const project = mkdtempSync(join(tmpdir(), 'warrant-doctor-project-'));
    const config = mkdtempSync(join(tmpdir(), 'warrant-doctor-claude-'));
    writeFileSync(
      join(config, '.claude.json'),
      JSON.stringify({ hasCompletedOnboarding: true, projects: options.trusted === false ? {} : { [project]: { hasTrustDialogAccepted: true } } }),
    );
    const env = { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, CLAUDE_CONFIG_DIR: config, WARRANT_DATA_DIR: server.dataDir };
    const integrated = await runCli(['integrate', 'claude-code', '--dir', project, '--write', ...(options.integrate ?? [])], { env });
    expect(integrated.code, integrated.stderr).toBe(0);
    return {
      project,
      config,
      env,
      doctor: (extra = {}, args = []) => runCli(['doctor', '--dir', project, ...args], { env: { ...env, ...extra } }),
      edit(file, change) {
        const path = join(project, file);
        const json = JSON.parse(readFileSync(path, 'utf8'));
        change(json);
        writeFileSync(path, JSON.stringify(json, null, 2));
      },
    };
  }

  const status = (r: CliResult, name: string): string | undefined => new RegExp(`^(ok|FAIL|skip) +${name}:`, 'm').exec(r.stdout)?.[1];

  async function passes(s: Scratch): Promise<void> {
    const r = await s.doctor();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/all \d+ checks passed/);
  }

  it('passes after `integrate claude-code --write` with a running server: every check ok, and its probe session ended', async () => {
    const s = await scratch();
    const r = await s.doctor();
    expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const name of ['server', 'mcp-entry', 'mcp-tools', 'mcp-approval', 'prompt-hook', 'hooks', 'permissions', 'workspace-trust', 'data-dir'])
      expect(status(r, name), name).toBe('ok');
    expect(r.stdout).toMatch(/mcp-tools: the MCP entry started and listed \d+ tools with probe session #(\d+)/);
    const probe = /probe session #(\d+)/.exec(r.stdout)![1];
    const session = await (await fetch(`${server.url}/api/v1/sessions/${probe}`, { headers: { authorization: `Bearer ${server.fleetKey}` } })).json();
    expect(session.session ?? session).toMatchObject({ title: 'warrant doctor probe', status: 'stopped' });
  });

  it('names a server that is down, with its fix', async () => {
    const s = await scratch();
    await passes(s);
    const r = await s.doctor({ WARRANT_URL: 'http://127.0.0.1:1' });
    expect(r.code).toBe(1);
    expect(status(r, 'server')).toBe('FAIL');
    expect(r.stdout).toMatch(/FAIL +server: cannot reach http:\/\/127\.0\.0\.1:1.*\n +fix: Start it with `warrant serve`/);
    expect(status(r, 'mcp-tools')).toBe('FAIL');
    expect(status(r, 'hooks')).toBe('ok');
  });

  it('names a missing MCP entry', async () => {
    const s = await scratch();
    await passes(s);
    s.edit('.mcp.json', (j) => delete j.mcpServers.warrant);
    const r = await s.doctor();
    expect(r.code).toBe(1);
    expect(status(r, 'mcp-entry')).toBe('FAIL');
    expect(r.stdout).toContain('fix: Run `warrant integrate claude-code --write`');
    expect(status(r, 'server')).toBe('ok');
    expect(status(r, 'permissions')).toBe('ok');
  });

  it('names an MCP entry whose command no longer exists (a moved install)', async () => {
    const s = await scratch();
    await passes(s);
    s.edit('.mcp.json', (j) => (j.mcpServers.warrant.args[0] = '/gone/warrant/dist/cli/main.js'));
    const r = await s.doctor();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL +mcp-entry: .*\/gone\/warrant\/dist\/cli\/main\.js does not exist/);
  });

  it('names missing permissions', async () => {
    const s = await scratch();
    await passes(s);
    s.edit('.claude/settings.json', (j) => (j.permissions.allow = ['Bash(npm test)']));
    const r = await s.doctor();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL +permissions: no permissions\.allow rule for the Warrant tools/);
    expect(status(r, 'mcp-tools')).toBe('ok');
  });

  it('names a deny rule that refuses the Warrant tools', async () => {
    const s = await scratch();
    await passes(s);
    s.edit('.claude/settings.json', (j) => (j.permissions.deny ??= []).push('mcp__warrant__send_message'));
    const r = await s.doctor();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL +permissions: permissions\.deny names Warrant tools/);
  });

  it('names a missing prompt hook', async () => {
    const s = await scratch();
    await passes(s);
    s.edit('.claude/settings.json', (j) => delete j.hooks.UserPromptSubmit);
    const r = await s.doctor();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL +prompt-hook: no Warrant UserPromptSubmit hook/);
    expect(status(r, 'hooks')).toBe('ok');
  });

  it('names a hook whose command will not run', async () => {
    const s = await scratch();
    await passes(s);
    s.edit(
      '.claude/settings.json',
      (j) => (j.hooks.Stop[0].hooks[0].command = 'NODE_EXTRA_CA_CERTS= "/usr/bin/env" "/gone/dist/hook/hook-main.cjs" claude-code'),
    );
    const r = await s.doctor();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL +hooks: hook command will not run: .*\/gone\/dist\/hook\/hook-main\.cjs does not exist/);
  });

  it('names an untrusted workspace (project allow rules ignored) and passes once the rule is in the user settings (--user)', async () => {
    const s = await scratch({ trusted: false });
    const r = await s.doctor();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL +workspace-trust: .* is not a trusted workspace/);
    expect(r.stdout).toContain('warrant integrate claude-code --user --write');
    const user = await runCli(['integrate', 'claude-code', '--dir', s.project, '--user', '--write'], { env: s.env });
    expect(user.code, user.stderr).toBe(0);
    await passes(s);
  });

  it('an unapproved project server, and one the person disabled, are named', async () => {
    const s = await scratch();
    await passes(s);
    s.edit('.claude/settings.local.json', (j) => (j.enabledMcpjsonServers = []));
    expect(status(await s.doctor(), 'mcp-approval')).toBe('FAIL');
    s.edit('.claude/settings.local.json', (j) => ((j.enabledMcpjsonServers = ['warrant']), (j.disabledMcpjsonServers = ['warrant'])));
    const r = await s.doctor();
    expect(r.stdout).toMatch(/FAIL +mcp-approval: .*disabledMcpjsonServers/);
  });

  it('names a data dir inside the project', async () => {
    const s = await scratch();
    await passes(s);
    const r = await s.doctor({ WARRANT_DATA_DIR: join(s.project, '.warrant') });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL +data-dir: the Warrant data dir .* lies inside the project/);
  });

  it("under `warrant run` it lists the tools with the session's own token and opens no probe session", async () => {
    const s = await scratch();
    const r = await runCli(['run', '--title', 'doctor inside a session', '--', process.execPath, CLI, 'doctor', '--dir', s.project], { env: s.env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('mcp-tools: the MCP entry started and listed');
    expect(r.stdout).toContain('with this session (WARRANT_SESSION_TOKEN)');
  });

  it('without a credential it cannot list the tools and says how to give it one', async () => {
    const s = await scratch();
    const r = await s.doctor({ WARRANT_TOKEN: '' });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL +mcp-tools: not tried: no credential.*\n +fix: Set WARRANT_TOKEN/);
  });

  it('codex: passes after `integrate codex --write` (hook trust skipped without codex) and names unapproved tools and a missing prompt hook', async () => {
    const home = mkdtempSync(join(tmpdir(), 'warrant-doctor-codex-'));
    const project = mkdtempSync(join(tmpdir(), 'warrant-doctor-project-'));
    mkdirSync(join(home, 'x'));
    const env = { WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey, CODEX_HOME: home, WARRANT_DATA_DIR: server.dataDir };
    expect((await runCli(['integrate', 'codex', '--write'], { env })).code).toBe(0);
    const doctor = () => runCli(['doctor', '--provider', 'codex', '--dir', project, '--codex', join(home, 'no-codex-here')], { env });
    const ok = await doctor();
    expect(ok.code, ok.stdout).toBe(0);
    for (const name of ['server', 'mcp-entry', 'mcp-tools', 'permissions', 'prompt-hook', 'hooks', 'data-dir']) expect(status(ok, name), name).toBe('ok');
    expect(status(ok, 'hooks-trust')).toBe('skip');
    const config = join(home, 'config.toml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('default_tools_approval_mode = "approve"\n', ''));
    const unapproved = await doctor();
    expect(unapproved.code).toBe(1);
    expect(unapproved.stdout).toMatch(/FAIL +permissions: .*default_tools_approval_mode/);
    const hooks = JSON.parse(readFileSync(join(home, 'hooks.json'), 'utf8'));
    delete hooks.hooks.UserPromptSubmit;
    writeFileSync(join(home, 'hooks.json'), JSON.stringify(hooks));
    expect(status(await doctor(), 'prompt-hook')).toBe('FAIL');
    // notify runs the hook through `env` (NODE_EXTRA_CA_CERTS emptied): what env runs is checked too
    const toml = readFileSync(config, 'utf8');
    expect(toml).toMatch(/^notify = \["\/usr\/bin\/env", "NODE_EXTRA_CA_CERTS=", /m);
    writeFileSync(config, toml.replace(/"[^"]*dist\/hook\/hook-main\.cjs"/, '"/gone/dist/hook/hook-main.cjs"'));
    expect((await doctor()).stdout).toMatch(/FAIL +hooks: hook command will not run: .*notify: \/gone\/dist\/hook\/hook-main\.cjs does not exist/);
  });
});
