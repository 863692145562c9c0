import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CLAUDE_HOOK_EVENTS,
  claudeDenyRules,
  hookCommand,
  isInside,
  isWarrantHook,
  mergeClaudeLocalSettings,
  mergeClaudeMcpServers,
  mergeClaudeSettings,
  warrantPaths,
  type WarrantPaths,
} from '../../src/integrations/agent-config.js';
import { CODEX_HOOK_EVENTS, mergeCodexHooksJson, mergeCodexToml, readTomlTables } from '../../src/integrations/codex-config.js';
import { argvProblem, commandArgv, shellWords } from '../../src/cli/doctor/probes.js';

const paths: WarrantPaths = { node: '/opt/node/bin/node', cliMain: '/srv/warrant/dist/cli/main.js', hookMain: '/srv/warrant/dist/hook/hook-main.cjs' };
const HOOK = 'NODE_EXTRA_CA_CERTS= "/opt/node/bin/node" "/srv/warrant/dist/hook/hook-main.cjs" claude-code';

describe('hook and MCP commands run without warrant on PATH', () => {
  it('hookCommand is the absolute node and hook entry point, quoted for the shell', () => {
    expect(hookCommand('claude-code', paths)).toBe(HOOK);
    expect(hookCommand('codex', paths)).toBe('NODE_EXTRA_CA_CERTS= "/opt/node/bin/node" "/srv/warrant/dist/hook/hook-main.cjs" codex');
    const live = warrantPaths();
    expect(live.node).toBe(process.execPath);
    expect(live.hookMain).toMatch(/[\\/]dist[\\/]hook[\\/]hook-main\.cjs$/);
    expect(live.cliMain).toMatch(/[\\/]dist[\\/]cli[\\/]main\.js$/);
  });
  it('paths with spaces, quotes and dollars survive the shell as one word each', () => {
    for (const odd of ['/home/a b/node', "/tmp/it's/node", '/x/$HOME/"q"/node', '/back\\slash/node']) {
      const command = hookCommand('claude-code', { ...paths, node: odd });
      expect(commandArgv(command)).toEqual([odd, paths.hookMain, 'claude-code']);
      expect(shellWords(command)).toEqual(['NODE_EXTRA_CA_CERTS=', odd, paths.hookMain, 'claude-code']);
    }
  });
  it('the hook starts without NODE_EXTRA_CA_CERTS (Node would parse every root certificate first), and the agent keeps it', () => {
    // the command through a real shell, as the agent runs it, with a stand-in entry point that says what it was given
    const dir = mkdtempSync(join(tmpdir(), 'warrant-hook-env-'));
    try {
      const entry = join(dir, 'print-env.cjs');
      writeFileSync(entry, 'process.stdout.write(JSON.stringify([process.env.NODE_EXTRA_CA_CERTS ?? null, process.env.KEEP_ME ?? null, process.argv[2]]))');
      const env = { ...process.env, NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt', KEEP_ME: 'kept' };
      const out = execFileSync('/bin/sh', ['-c', hookCommand('claude-code', { ...paths, node: process.execPath, hookMain: entry })], { env, encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual(['', 'kept', 'claude-code']);
      expect(env.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/certs/ca-certificates.crt');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('doctor reads a hook argv the way it runs', () => {
  it('through env: env itself, then what it runs past its options and assignments, must exist', () => {
    const dir = mkdtempSync(join(tmpdir(), 'warrant-argv-'));
    try {
      const hook = join(dir, 'hook-main.cjs');
      writeFileSync(hook, '');
      const gone = join(dir, 'gone.cjs');
      expect(argvProblem(['/usr/bin/env', 'NODE_EXTRA_CA_CERTS=', process.execPath, hook, 'codex'])).toBeNull();
      expect(argvProblem(['/usr/bin/env', '-u', 'NODE_EXTRA_CA_CERTS', process.execPath, hook, 'codex'])).toBeNull();
      expect(argvProblem(['/usr/bin/env', '-i', 'A=1', '--', process.execPath, hook])).toBeNull();
      expect(argvProblem(['/usr/bin/env', 'NODE_EXTRA_CA_CERTS=', process.execPath, gone, 'codex'])).toBe(`${gone} does not exist`);
      expect(argvProblem(['/usr/bin/env', '-u', 'X', '/no/such/node', hook])).toBe('/no/such/node does not exist (or is not executable)');
      expect(argvProblem(['/usr/bin/env', 'A=1'])).toBe('the command is empty');
      expect(argvProblem(['/no/env', process.execPath, hook])).toBe('/no/env does not exist (or is not executable)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Claude Code merges', () => {
  it('settings: six hooks, the allow rule and the deny rules, keeping every other key, rule and hook; a second merge changes nothing', () => {
    const existing = JSON.stringify({
      model: 'opus',
      permissions: { allow: ['Bash(npm test)'], deny: ['Read(./secrets/**)'] },
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: 'notify-me' }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }] }],
      },
    });
    const once = mergeClaudeSettings(existing, { paths, deniedDataDir: '/p/.warrant' });
    expect(once.changed).toBe(true);
    const merged = JSON.parse(once.text);
    expect(merged.model).toBe('opus');
    expect(merged.permissions.allow).toEqual(['Bash(npm test)', 'mcp__warrant']);
    expect(merged.permissions.deny).toEqual(['Read(./secrets/**)', 'Read(//p/.warrant/**)', 'Edit(//p/.warrant/**)']);
    expect(merged.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }] }]);
    expect(merged.hooks.Stop[0]).toEqual({ hooks: [{ type: 'command', command: 'notify-me' }] });
    for (const event of CLAUDE_HOOK_EVENTS) expect(merged.hooks[event].at(-1)).toEqual({ hooks: [{ type: 'command', command: HOOK, timeout: 10 }] });
    expect(Object.keys(merged.hooks).sort()).toEqual([...CLAUDE_HOOK_EVENTS, 'PreToolUse'].sort());
    const twice = mergeClaudeSettings(once.text, { paths, deniedDataDir: '/p/.warrant' });
    expect(twice).toEqual({ text: once.text, changed: false, notes: [] });
  });

  it("an earlier `warrant hook claude-code` (or another install's path) is upgraded in place, never duplicated", () => {
    const legacy = JSON.stringify({
      hooks: {
        Stop: [
          {
            hooks: [
              { type: 'command', command: 'warrant hook claude-code', timeout: 10 },
              { type: 'command', command: 'keep-me' },
            ],
          },
        ],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: '"/old/node" "/old/warrant/dist/hook/hook-main.js" claude-code' }] }],
      },
    });
    const r = mergeClaudeSettings(legacy, { paths });
    const hooks = JSON.parse(r.text).hooks;
    expect(hooks.Stop).toEqual([
      {
        hooks: [
          { type: 'command', command: HOOK, timeout: 10 },
          { type: 'command', command: 'keep-me' },
        ],
      },
    ]);
    expect(hooks.UserPromptSubmit).toEqual([{ hooks: [{ type: 'command', command: HOOK }] }]);
    expect(r.notes.join(' ')).toContain('upgraded');
  });

  it("recognises Warrant's hooks in every form it was written, and nobody else's", () => {
    for (const c of [
      'warrant hook claude-code',
      HOOK,
      '"/old/node" "/old/dist/hook/hook-main.js" claude-code',
      'NODE_EXTRA_CA_CERTS= "/old/node" "/old/dist/hook/hook-main.js" claude-code',
      '"/usr/bin/node" "/x/warrant/dist/cli/main.js" hook claude-code',
      "'/a b/node' '/a b/dist/hook/hook-main.js' claude-code",
    ])
      expect(isWarrantHook(c, 'claude-code'), c).toBe(true);
    for (const c of [
      'notify-me',
      'warrant hook codex',
      '"/n" "/x/dist/hook/hook-main.js" codex',
      'NODE_EXTRA_CA_CERTS= "/n" "/x/dist/hook/hook-main.cjs" codex',
      'my-hook-main.cjs claude-code --extra',
      'my-hook-main.js claude-code --extra',
      'echo warrant hook claude-code > /tmp/x',
    ])
      expect(isWarrantHook(c, 'claude-code'), c).toBe(false);
  });

  it('an allow rule written another way counts; a deny naming Warrant tools is kept and noted', () => {
    const r = mergeClaudeSettings(JSON.stringify({ permissions: { allow: ['mcp__warrant__*'], deny: ['mcp__warrant__send_message'] } }), {
      paths,
      hooks: false,
    });
    expect(r.changed).toBe(false);
    expect(r.notes.join(' ')).toContain('deny');
  });

  it("the deny rules use Claude's absolute-path form", () => {
    expect(claudeDenyRules('/work/proj/.warrant')).toEqual(['Read(//work/proj/.warrant/**)', 'Edit(//work/proj/.warrant/**)']);
    expect(isInside('/work/proj/.warrant', '/work/proj')).toBe(true);
    expect(isInside('/work/project-data', '/work/proj')).toBe(false);
    expect(isInside('/work', '/work/proj')).toBe(false);
  });

  it('mcpServers: adds the absolute entry; upgrades the bare `warrant` one; leaves a foreign "warrant" entry with a note', () => {
    const added = JSON.parse(mergeClaudeMcpServers(JSON.stringify({ mcpServers: { gh: { command: 'gh-mcp' } } }), '.mcp.json', paths).text);
    expect(added.mcpServers.gh).toEqual({ command: 'gh-mcp' });
    expect(added.mcpServers.warrant).toEqual({
      type: 'stdio',
      command: '/opt/node/bin/node',
      args: ['/srv/warrant/dist/cli/main.js', 'mcp', '--self'],
      env: { WARRANT_URL: '${WARRANT_URL:-http://127.0.0.1:7420}', WARRANT_SESSION_TOKEN: '${WARRANT_SESSION_TOKEN:-}' },
    });
    const legacy = mergeClaudeMcpServers(
      JSON.stringify({ mcpServers: { warrant: { command: 'warrant', args: ['mcp', '--self'], env: {} } } }),
      '.mcp.json',
      paths,
    );
    expect(legacy.changed).toBe(true);
    expect(JSON.parse(legacy.text).mcpServers.warrant.command).toBe('/opt/node/bin/node');
    const foreign = JSON.stringify({ mcpServers: { warrant: { command: 'my-own', args: [] } } });
    const left = mergeClaudeMcpServers(foreign, '.mcp.json', paths);
    expect(left).toMatchObject({ text: foreign, changed: false });
    expect(left.notes[0]).toContain('differs');
    const again = mergeClaudeMcpServers(mergeClaudeMcpServers(null, '.mcp.json', paths).text, '.mcp.json', paths);
    expect(again.changed).toBe(false);
  });

  it('the user state file keeps everything Claude Code keeps there', () => {
    const state = JSON.stringify({ numStartups: 3, projects: { '/p': { hasTrustDialogAccepted: true } }, mcpServers: {} });
    const merged = JSON.parse(mergeClaudeMcpServers(state, '.claude.json', paths).text);
    expect(merged.numStartups).toBe(3);
    expect(merged.projects).toEqual({ '/p': { hasTrustDialogAccepted: true } });
    expect(merged.mcpServers.warrant.command).toBe(paths.node);
  });

  it('local settings approve the project server once; all-servers approval is left alone', () => {
    const once = mergeClaudeLocalSettings(JSON.stringify({ enabledMcpjsonServers: ['gh'], other: 1 }));
    expect(JSON.parse(once.text)).toEqual({ enabledMcpjsonServers: ['gh', 'warrant'], other: 1 });
    expect(mergeClaudeLocalSettings(once.text).changed).toBe(false);
    expect(mergeClaudeLocalSettings(JSON.stringify({ enableAllProjectMcpServers: true })).changed).toBe(false);
    expect(mergeClaudeLocalSettings(JSON.stringify({ disabledMcpjsonServers: ['warrant'] })).notes[0]).toContain('disabledMcpjsonServers');
  });

  it('refuses invalid JSON and non-object sections, writing nothing', () => {
    expect(() => mergeClaudeSettings('{ nope', { paths })).toThrow(/not valid JSON/);
    expect(() => mergeClaudeSettings(JSON.stringify({ hooks: [] }), { paths })).toThrow(/hooks is not an object/);
    expect(() => mergeClaudeMcpServers(JSON.stringify({ mcpServers: 'x' }), '.mcp.json', paths)).toThrow(/mcpServers is not an object/);
  });
});

describe('Codex merges', () => {
  const NOTIFY = 'notify = ["/usr/bin/env", "NODE_EXTRA_CA_CERTS=", "/opt/node/bin/node", "/srv/warrant/dist/hook/hook-main.cjs", "codex"]';

  it('config.toml gains notify before the first table and the MCP table at the end, keeping the rest; a second merge changes nothing', () => {
    const existing = 'model = "o4"\n\n[mcp_servers.other]\ncommand = "x"\n';
    const once = mergeCodexToml(existing, paths);
    expect(once.changed).toBe(true);
    expect(once.text).toBe(
      `model = "o4"\n${NOTIFY}\n\n[mcp_servers.other]\ncommand = "x"\n\n[mcp_servers.warrant]\ncommand = "/opt/node/bin/node"\nargs = ["/srv/warrant/dist/cli/main.js", "mcp", "--self"]\nenv_vars = ["WARRANT_URL", "WARRANT_SESSION_TOKEN"]\ndefault_tools_approval_mode = "approve"\nrequired = true\n`,
    );
    expect(mergeCodexToml(once.text, paths)).toEqual({ text: once.text, changed: false, notes: [] });
    const tables = readTomlTables(once.text);
    expect(tables.get('')).toEqual({
      model: 'o4',
      notify: ['/usr/bin/env', 'NODE_EXTRA_CA_CERTS=', '/opt/node/bin/node', '/srv/warrant/dist/hook/hook-main.cjs', 'codex'],
    });
    expect(tables.get('mcp_servers.warrant')).toEqual({
      command: '/opt/node/bin/node',
      args: ['/srv/warrant/dist/cli/main.js', 'mcp', '--self'],
      env_vars: ['WARRANT_URL', 'WARRANT_SESSION_TOKEN'],
      default_tools_approval_mode: 'approve',
      required: true,
    });
  });

  it("an earlier integrate's bare `warrant` lines are upgraded in place; another notify and another warrant table are kept with a note", () => {
    const legacy =
      'notify = ["warrant", "hook", "codex"]\n\n[mcp_servers.warrant]\ncommand = "warrant"\nargs = ["mcp", "--self"]\nenv_vars = ["WARRANT_URL", "WARRANT_SESSION_TOKEN"]\nstartup_timeout_sec = 20\n';
    const up = mergeCodexToml(legacy, paths);
    expect(up.text).toContain(NOTIFY);
    expect(up.text).toContain('[mcp_servers.warrant]\ncommand = "/opt/node/bin/node"\nargs = ["/srv/warrant/dist/cli/main.js", "mcp", "--self"]');
    expect(up.text).toContain('startup_timeout_sec = 20\ndefault_tools_approval_mode = "approve"\nrequired = true\n');
    expect(up.text.match(/env_vars/g)).toHaveLength(1);
    expect(mergeCodexToml(up.text, paths).changed).toBe(false);
    expect(up.text.match(/\[mcp_servers\.warrant\]/g)).toHaveLength(1);
    const absoluteAlias = mergeCodexToml('notify = ["/usr/bin/node", "/x/warrant/dist/cli/main.js", "hook", "codex"]\n', paths);
    expect(absoluteAlias.text.split('\n')[0]).toBe(NOTIFY);
    // the ES module entry point an earlier integrate wrote
    const esmEntry = mergeCodexToml('notify = ["/usr/bin/node", "/x/warrant/dist/hook/hook-main.js", "codex"]\n', paths);
    expect(esmEntry.text.split('\n')[0]).toBe(NOTIFY);
    expect(mergeCodexToml(esmEntry.text, paths).changed).toBe(false);
    const foreign = 'notify = ["say", "done"]\n\n[mcp_servers.warrant]\ncommand = "mine"\n';
    const kept = mergeCodexToml(foreign, paths);
    expect(kept.changed).toBe(false);
    expect(kept.text).toBe(foreign);
    expect(kept.notes).toHaveLength(2);
  });

  it('hooks.json gains each lifecycle hook once, keeping other hooks', () => {
    const existing = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }] } });
    const once = mergeCodexHooksJson(existing, 'hooks.json', paths);
    const hooks = JSON.parse(once.text).hooks;
    expect(Object.keys(hooks).sort()).toEqual([...CODEX_HOOK_EVENTS].sort());
    expect(hooks.Stop).toEqual([
      { hooks: [{ type: 'command', command: 'mine' }] },
      { hooks: [{ type: 'command', command: hookCommand('codex', paths), timeout: 10 }] },
    ]);
    expect(mergeCodexHooksJson(once.text, 'hooks.json', paths).changed).toBe(false);
  });
});

describe('Codex hook trust', () => {
  it('records each hash under its key, replacing an earlier hash in place', async () => {
    const { trustCodexHooksInToml } = await import('../../src/integrations/codex-app-server.js');
    const once = trustCodexHooksInToml('model = "o4"\n', [{ key: '/c/hooks.json:stop:0:0', currentHash: 'sha256:aa' }]);
    expect(once).toBe('model = "o4"\n\n[hooks.state."/c/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:aa"\n');
    const again = trustCodexHooksInToml(once, [{ key: '/c/hooks.json:stop:0:0', currentHash: 'sha256:bb' }]);
    expect(again).toBe(once.replace('sha256:aa', 'sha256:bb'));
  });
});
