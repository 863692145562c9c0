import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/server-process.js';
import { mergeCodexToml } from '../../src/integrations/agent-config.js';

describe('warrant integrate (spec 08)', () => {
  it('claude-code --write merges into existing .mcp.json and .claude/settings.json without losing their keys; a second run changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warrant-integrate-'));
    mkdirSync(join(dir, '.claude'));
    const mcp = { mcpServers: { github: { command: 'gh-mcp', args: ['--stdio'] } }, other: { keep: true } };
    const settings = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify-me' }] }], PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }] }] },
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
    expect(mergedMcp.mcpServers.warrant).toMatchObject({ command: 'warrant', args: ['mcp', '--self'] });
    const mergedSettings = JSON.parse(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8'));
    expect(mergedSettings.permissions).toEqual(settings.permissions);
    expect(mergedSettings.model).toBe('opus');
    expect(mergedSettings.hooks.PreToolUse).toEqual(settings.hooks.PreToolUse);
    expect(mergedSettings.hooks.Stop).toHaveLength(2);
    expect(mergedSettings.hooks.Stop[0]).toEqual(settings.hooks.Stop[0]);
    for (const event of ['SessionStart', 'UserPromptSubmit', 'Stop']) {
      expect(JSON.stringify(mergedSettings.hooks[event])).toContain('warrant hook claude-code');
    }

    const before = [readFileSync(join(dir, '.mcp.json'), 'utf8'), readFileSync(join(dir, '.claude', 'settings.json'), 'utf8')];
    const second = await runCli(['integrate', 'claude-code', '--dir', dir, '--write']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('already integrated');
    expect([readFileSync(join(dir, '.mcp.json'), 'utf8'), readFileSync(join(dir, '.claude', 'settings.json'), 'utf8')]).toEqual(before);
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
    for (const kept of ['model = "o4"', 'approval_policy = "on-request"', '[mcp_servers.other]\ncommand = "x"\nargs = ["--stdio"]']) expect(merged).toContain(kept);
    expect(merged).toContain('[mcp_servers.warrant]');
    expect(merged).toMatch(/notify = .*warrant.*hook.*codex/);
    const second = await runCli(['integrate', 'codex', '--config', config, '--write']);
    expect(second.code).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(merged);
  });

  it('codex merges its MCP table and notify hook once, keeping the rest', () => {
    const existing = 'model = "o4"\n\n[mcp_servers.other]\ncommand = "x"\n';
    const once = mergeCodexToml(existing);
    expect(once.changed).toBe(true);
    expect(once.text).toContain('model = "o4"');
    expect(once.text).toContain('[mcp_servers.other]\ncommand = "x"');
    expect(once.text).toContain('[mcp_servers.warrant]');
    expect(once.text.indexOf('notify = ')).toBeLessThan(once.text.indexOf('[mcp_servers.other]'));
    const twice = mergeCodexToml(once.text);
    expect(twice.changed).toBe(false);
    expect(twice.text).toBe(once.text);
  });
});

describe('warrant hook claude-code never blocks the agent', () => {
  it('with the server down it exits 0 and prints one line', async () => {
    const r = await runCli(['hook', 'claude-code'], {
      env: { WARRANT_URL: 'http://127.0.0.1:1', WARRANT_SESSION_ID: '1', WARRANT_SESSION_TOKEN: 'wrt_s_' + 'a'.repeat(43) },
      input: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'abc', transcript_path: '/tmp/t.jsonl' }),
    });
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('warrant hook:');
  });
  it('with a server that accepts and never answers it gives up, exits 0 and prints one line', async () => {
    const hung = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', () => resolve()));
    const { port } = hung.address() as AddressInfo;
    try {
      const env = { WARRANT_URL: `http://127.0.0.1:${port}`, WARRANT_SESSION_ID: '1', WARRANT_SESSION_TOKEN: 'wrt_s_' + 'a'.repeat(43) };
      const claude = await runCli(['hook', 'claude-code'], { env, input: JSON.stringify({ hook_event_name: 'Stop' }) });
      expect(claude.code).toBe(0);
      expect(claude.stderr.trim().split('\n')).toEqual([expect.stringContaining('warrant hook: could not report Stop: server-timeout:')]);
      const codex = await runCli(['hook', 'codex', JSON.stringify({ type: 'agent-turn-complete' })], { env });
      expect(codex.code).toBe(0);
      expect(codex.stderr.trim().split('\n')).toEqual([expect.stringContaining('server-timeout')]);
    } finally {
      hung.closeAllConnections();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
    }
  });
  it('with garbage on stdin it still exits 0 with one line', async () => {
    const r = await runCli(['hook', 'claude-code'], { input: '{{{' });
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
