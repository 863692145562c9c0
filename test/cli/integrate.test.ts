import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer as createNetServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, runCli } from '../helpers/server-process.js';
import { hookCommand } from '../../src/integrations/agent-config.js';
import { mergeCodexToml } from '../../src/integrations/codex-config.js';

const ROOT = resolve(import.meta.dirname, '../..');
const HOOK = `NODE_EXTRA_CA_CERTS= "${process.execPath}" "${join(ROOT, 'dist/hook/hook-main.cjs')}" claude-code`;

describe('warrant integrate', () => {
  it('claude-code --write merges into existing .mcp.json and .claude/settings.json without losing their keys; a second run changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warrant-integrate-'));
    mkdirSync(join(dir, '.claude'));
    const mcp = { mcpServers: { github: { command: 'gh-mcp', args: ['--stdio'] } }, other: { keep: true } };
    const settings = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: 'notify-me' }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }] }],
      },
      model: 'opus',
    };
    writeFileSync(join(dir, '.mcp.json'), JSON.stringify(mcp, null, 2));
    writeFileSync(join(dir, '.claude', 'settings.json'), JSON.stringify(settings, null, 2));

    const dry = await runCli(['integrate', 'claude-code', '--dir', dir]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('would become');
    expect(JSON.parse(readFileSync(join(dir, '.mcp.json'), 'utf8'))).toEqual(mcp); // nothing written without --write

    const first = await runCli(['integrate', 'claude-code', '--dir', dir, '--write']);
    expect(first.code).toBe(0);
    const mergedMcp = JSON.parse(readFileSync(join(dir, '.mcp.json'), 'utf8'));
    expect(mergedMcp.mcpServers.github).toEqual(mcp.mcpServers.github);
    expect(mergedMcp.other).toEqual({ keep: true });
    // absolute: the Node running the CLI and this package's built entry point, no `warrant` on PATH
    expect(mergedMcp.mcpServers.warrant).toMatchObject({ command: process.execPath, args: [join(ROOT, 'dist/cli/main.js'), 'mcp', '--self'] });
    const mergedSettings = JSON.parse(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8'));
    expect(mergedSettings.permissions.allow).toEqual(['Bash(npm test)', 'mcp__warrant']);
    // the server's default data dir would be <project>/.warrant: denied to the agent's file tools
    expect(mergedSettings.permissions.deny).toEqual([`Read(/${dir}/.warrant/**)`, `Edit(/${dir}/.warrant/**)`]);
    expect(first.stdout).toContain('lies inside the project');
    expect(JSON.parse(readFileSync(join(dir, '.claude', 'settings.local.json'), 'utf8'))).toEqual({ enabledMcpjsonServers: ['warrant'] });
    expect(mergedSettings.model).toBe('opus');
    expect(mergedSettings.hooks.PreToolUse).toEqual(settings.hooks.PreToolUse);
    expect(mergedSettings.hooks.Stop).toHaveLength(2);
    expect(mergedSettings.hooks.Stop[0]).toEqual(settings.hooks.Stop[0]);
    expect(HOOK).toBe(hookCommand('claude-code'));
    for (const event of ['SessionStart', 'UserPromptSubmit', 'Stop', 'SubagentStart', 'SubagentStop', 'SessionEnd']) {
      expect(mergedSettings.hooks[event].at(-1)).toEqual({ hooks: [{ type: 'command', command: HOOK, timeout: 10 }] });
    }

    const files = ['.mcp.json', '.claude/settings.json', '.claude/settings.local.json'];
    const before = files.map((f) => readFileSync(join(dir, f), 'utf8'));
    const second = await runCli(['integrate', 'claude-code', '--dir', dir, '--write']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('already integrated');
    expect(files.map((f) => readFileSync(join(dir, f), 'utf8'))).toEqual(before);
  });

  it('no deny rule when the data dir lies elsewhere; an earlier bare `warrant hook claude-code` is upgraded, not duplicated', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warrant-integrate-'));
    mkdirSync(join(dir, '.claude'));
    writeFileSync(
      join(dir, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'warrant hook claude-code', timeout: 10 }] }] } }),
    );
    const r = await runCli(['integrate', 'claude-code', '--dir', dir, '--write', '--data-dir', join(tmpdir(), 'elsewhere-data')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('upgraded');
    const merged = JSON.parse(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8'));
    expect(merged.permissions).toEqual({ allow: ['mcp__warrant'] });
    expect(merged.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: HOOK, timeout: 10 }] }]);
  });

  it("--user writes the MCP entry into the config dir's .claude.json and the allow rule and hooks into its settings.json, leaving the project alone", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warrant-integrate-'));
    const config = mkdtempSync(join(tmpdir(), 'warrant-claude-config-'));
    writeFileSync(join(config, '.claude.json'), JSON.stringify({ numStartups: 2, projects: { [dir]: { hasTrustDialogAccepted: false } } }));
    const r = await runCli(['integrate', 'claude-code', '--dir', dir, '--user', '--write'], { env: { CLAUDE_CONFIG_DIR: config } });
    expect(r.code, r.stderr).toBe(0);
    const state = JSON.parse(readFileSync(join(config, '.claude.json'), 'utf8'));
    expect(state.numStartups).toBe(2);
    expect(state.projects).toEqual({ [dir]: { hasTrustDialogAccepted: false } });
    expect(state.mcpServers.warrant).toMatchObject({ command: process.execPath, args: [join(ROOT, 'dist/cli/main.js'), 'mcp', '--self'] });
    const user = JSON.parse(readFileSync(join(config, 'settings.json'), 'utf8'));
    expect(user.permissions.allow).toEqual(['mcp__warrant']);
    expect(Object.keys(user.hooks)).toHaveLength(6);
    expect(existsSync(join(dir, '.mcp.json'))).toBe(false);
    expect(existsSync(join(dir, '.claude'))).toBe(false);
  });

  it('creates the files when absent, and refuses to touch invalid JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warrant-integrate-'));
    expect((await runCli(['integrate', 'claude-code', '--dir', dir, '--write'])).code).toBe(0);
    expect(existsSync(join(dir, '.mcp.json'))).toBe(true);
    const broken = mkdtempSync(join(tmpdir(), 'warrant-integrate-'));
    writeFileSync(join(broken, '.mcp.json'), '{ not json');
    const r = await runCli(['integrate', 'claude-code', '--dir', broken, '--write']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not valid JSON');
    expect(readFileSync(join(broken, '.mcp.json'), 'utf8')).toBe('{ not json');
  });

  it('codex --write through the CLI merges into config.toml keeping every other key; a second run changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warrant-integrate-codex-'));
    const config = join(dir, 'config.toml');
    const existing = 'model = "o4"\napproval_policy = "on-request"\n\n[mcp_servers.other]\ncommand = "x"\nargs = ["--stdio"]\n';
    writeFileSync(config, existing);
    const dry = await runCli(['integrate', 'codex', '--config', config]);
    expect(dry.code).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(existing);
    const first = await runCli(['integrate', 'codex', '--config', config, '--write']);
    expect(first.code, first.stderr).toBe(0);
    const merged = readFileSync(config, 'utf8');
    expect(merged).toBe(mergeCodexToml(existing).text);
    for (const kept of ['model = "o4"', 'approval_policy = "on-request"', '[mcp_servers.other]\ncommand = "x"\nargs = ["--stdio"]'])
      expect(merged).toContain(kept);
    expect(merged).toContain('[mcp_servers.warrant]');
    expect(merged).toContain(
      `notify = ${JSON.stringify(['/usr/bin/env', 'NODE_EXTRA_CA_CERTS=', process.execPath, join(ROOT, 'dist/hook/hook-main.cjs'), 'codex']).replace(/","/g, '", "')}`,
    );
    const hooks = JSON.parse(readFileSync(join(dir, 'hooks.json'), 'utf8')).hooks;
    expect(Object.keys(hooks).sort()).toEqual(['SessionEnd', 'SessionStart', 'Stop', 'SubagentStart', 'SubagentStop', 'UserPromptSubmit']);
    expect(hooks.UserPromptSubmit).toEqual([{ hooks: [{ type: 'command', command: hookCommand('codex'), timeout: 10 }] }]);
    const hooksText = readFileSync(join(dir, 'hooks.json'), 'utf8');
    const second = await runCli(['integrate', 'codex', '--config', config, '--write']);
    expect(second.code).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(merged);
    expect(readFileSync(join(dir, 'hooks.json'), 'utf8')).toBe(hooksText);
  });
});

describe('the integrated MCP entry outside `warrant run`', () => {
  it('starts and lists no tools when there is no session token (a silent no-op, not a failing server)', async () => {
    const env = { ...process.env, WARRANT_URL: 'http://127.0.0.1:1' } as Record<string, string>;
    delete env.WARRANT_SESSION_TOKEN;
    delete env.WARRANT_TOKEN;
    const client = new Client({ name: 'integrate-test', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--self'], env }));
    try {
      expect((await client.listTools()).tools).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('the hook never blocks the agent (dist/hook/hook-main.cjs and its `warrant hook` alias)', () => {
  const TOKEN = 'wrt_s_' + 'a'.repeat(43);
  const HOOK_MAIN = resolve(import.meta.dirname, '../../dist/hook/hook-main.cjs');
  const runHookMain = (args: string[], env: Record<string, string>, input?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, [HOOK_MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdin.end(input ?? '');
      child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    });
  const systemMessageOf = (stdout: string) => (JSON.parse(stdout) as { systemMessage: string }).systemMessage;

  it('with the runner gone (its socket missing) it exits 0 and says so as one JSON systemMessage, never plain output', async () => {
    const env = { WARRANT_SESSION_TOKEN: TOKEN, WARRANT_RUNNER_SOCKET: join(tmpdir(), `no-runner-${process.pid}.sock`) };
    const input = JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'abc', transcript_path: '/tmp/t.jsonl' });
    for (const r of [await runHookMain(['claude-code'], env, input), await runCli(['hook', 'claude-code'], { env, input })]) {
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(systemMessageOf(r.stdout)).toContain('could not hand SessionStart to `warrant run`');
    }
  });

  it('with a runner socket that accepts and never answers it gives up, exits 0 and says so (Claude stdin and Codex notify argv)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warrant-hung-runner-'));
    const path = join(dir, 'hooks.sock');
    const held: import('node:net').Socket[] = [];
    const hung = createNetServer((socket) => void held.push(socket)); // never answers
    await new Promise<void>((r) => hung.listen(path, () => r()));
    try {
      const env = { WARRANT_SESSION_TOKEN: TOKEN, WARRANT_RUNNER_SOCKET: path };
      const claude = await runHookMain(['claude-code'], env, JSON.stringify({ hook_event_name: 'Stop' }));
      expect([claude.code, claude.stderr]).toEqual([0, '']);
      expect(systemMessageOf(claude.stdout)).toContain('did not answer');
      const codex = await runHookMain(['codex', JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 't' })], env);
      expect(codex.code).toBe(0);
      expect(systemMessageOf(codex.stdout)).toContain('did not answer');
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((r) => hung.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('garbage on stdin: exit 0 and one systemMessage inside a session; outside one (no token) silent, silent', async () => {
    const inside = await runHookMain(['claude-code'], { WARRANT_SESSION_TOKEN: TOKEN }, '{{{');
    expect(inside.code).toBe(0);
    expect(systemMessageOf(inside.stdout)).toContain('not JSON');
    const outside = await runHookMain(['claude-code'], {}, JSON.stringify({ hook_event_name: 'SessionStart' }));
    expect([outside.code, outside.stdout, outside.stderr]).toEqual([0, '', '']);
  });

  it('the ES module entry point an earlier integrate wrote (dist/hook/hook-main.js) still runs the hook', async () => {
    const env = { PATH: process.env.PATH ?? '', WARRANT_SESSION_TOKEN: TOKEN, WARRANT_RUNNER_SOCKET: join(tmpdir(), `no-runner-${process.pid}.sock`) };
    const r = await runCli(['hook', 'claude-code'], { env, input: '{}' }); // the alias, for the message it gives
    const old = await new Promise<{ code: number | null; stdout: string }>((done) => {
      const child = spawn(process.execPath, [resolve(import.meta.dirname, '../../dist/hook/hook-main.js'), 'claude-code'], {
        env,
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stdin.end(JSON.stringify({ hook_event_name: 'SessionStart' }));
      child.on('close', (code) => done({ code, stdout }));
    });
    expect(old.code).toBe(0);
    expect(systemMessageOf(old.stdout)).toContain('could not hand SessionStart to `warrant run`');
    expect(systemMessageOf(r.stdout)).toContain('could not hand');
  });

  it('reads the whole payload however it arrives: in pieces on a blocking pipe, and on a stdin left non-blocking', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warrant-hook-stdin-'));
    const path = join(dir, 'hooks.sock');
    const lines: string[] = [];
    const runner = createNetServer((socket) => {
      let buffer = '';
      socket.on('data', (d: Buffer) => {
        buffer += d.toString();
        if (!buffer.includes('\n')) return;
        lines.push(buffer.split('\n')[0]!);
        socket.write('{"ok":true}\n');
      });
    });
    await new Promise<void>((r) => runner.listen(path, () => r()));
    const prompt = 'p'.repeat(200_000); // larger than one read and than a pipe's buffer
    const payload = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt });
    const env = { PATH: process.env.PATH ?? '', WARRANT_SESSION_TOKEN: TOKEN, WARRANT_RUNNER_SOCKET: path };
    // python3 hands the hook its stdin: the first piece is in the pipe before the hook reads, the rest comes after it would have blocked
    const writer = `
import os, subprocess, sys, time
payload = sys.stdin.buffer.read()
r, w = os.pipe()
os.set_blocking(r, sys.argv[1] == 'blocking')
child = subprocess.Popen(sys.argv[2:], stdin=r)
os.close(r)
os.write(w, payload[:1000])
time.sleep(0.5)
os.set_blocking(w, True)
os.write(w, payload[1000:])
os.close(w)
sys.exit(child.wait())
`;
    try {
      for (const mode of ['blocking', 'nonblocking']) {
        const r = await new Promise<{ code: number | null; stdout: string }>((done) => {
          const child = spawn('python3', ['-c', writer, mode, process.execPath, HOOK_MAIN, 'claude-code'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
          let stdout = '';
          child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
          child.on('error', (error) => done({ code: null, stdout: String(error) }));
          child.on('close', (code) => done({ code, stdout }));
          child.stdin.end(payload);
        });
        expect([mode, r.code, r.stdout]).toEqual([mode, 0, '']);
        const sent = JSON.parse(lines.at(-1)!) as { event: string; payload: { prompt: string } };
        expect([mode, sent.event, sent.payload.prompt.length]).toEqual([mode, 'UserPromptSubmit', prompt.length]);
      }
      expect(lines).toHaveLength(2);
    } finally {
      await new Promise<void>((r) => runner.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
