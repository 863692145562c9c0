/**
 * How the real agent CLIs are run hermetically against the scripted model endpoint
 * (docs/design/agent-clis.md): where the pinned binaries are, the isolated config each one
 * needs, and how a test writes a project's MCP entry and hooks.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { onTestFinished } from 'vitest';
import { hookCommand } from '../../src/integrations/agent-config.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLIS_DIR = process.env.WARRANT_AGENT_CLIS_DIR ? resolve(process.env.WARRANT_AGENT_CLIS_DIR) : join(ROOT, '.agent-clis');
export const CLAUDE_BIN = join(CLIS_DIR, 'node_modules/@anthropic-ai/claude-code/bin/claude.exe');
export const CODEX_JS = join(CLIS_DIR, 'node_modules/@openai/codex/bin/codex.js');
export const INSPECTOR_JS = join(CLIS_DIR, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
export const WARRANT_CLI = join(ROOT, 'dist/cli/main.js');

/** Throws (never skips) when the pinned CLIs are not installed: the suite must fail in CI. */
export function requireAgentClis(): void {
  const missing = [CLAUDE_BIN, CODEX_JS, INSPECTOR_JS, WARRANT_CLI, WARRANT_HOOK].filter((p) => !existsSync(p));
  if (missing.length > 0) throw new Error(`missing ${missing.join(', ')}: run \`npm run test:agents\` (it builds and runs scripts/install-agent-clis.mjs)`);
}

/** A scratch dir for one test, removed when the test passes (kept for a look when it fails). */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `warrant-agents-${prefix}-`));
  onTestFinished((context) => {
    if (context.task.result?.state === 'pass') rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** The environment every agent run starts from: no inherited credentials or user config. */
export function baseEnv(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', TERM: 'dumb' };
}

/** The Warrant MCP entry, as `warrant integrate` writes it but with absolute paths. */
export function warrantMcpCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [WARRANT_CLI, 'mcp', '--self'] };
}

/** The hook entry point `warrant integrate` writes (it hands each event to `warrant run`'s socket). */
export const WARRANT_HOOK = join(ROOT, 'dist/hook/hook-main.cjs');

/** The hook command exactly as `warrant integrate` writes it. */
export function warrantHookCommand(provider: 'claude-code' | 'codex'): string {
  return hookCommand(provider);
}

// ---------------------------------------------------------------- Claude Code

const CLAUDE_API_KEY = 'sk-ant-scripted-endpoint-0123456789abcdef';

export interface ClaudeSetup {
  project: string;
  endpointUrl: string;
  /** hook commands per event, written to the project's .claude/settings.json */
  hooks?: Record<string, string[]>;
  /** MCP servers written to the project's .mcp.json */
  mcpServers?: Record<string, { command: string; args: string[]; env?: Record<string, string> }>;
  /** permissions.allow in the project's settings */
  allow?: string[];
  /** permissions.allow in the user's settings ($CLAUDE_CONFIG_DIR/settings.json) */
  userAllow?: string[];
  /** pre-seed the workspace trust (default true) */
  trusted?: boolean;
}

/** Writes an isolated CLAUDE_CONFIG_DIR (onboarding done, workspace trusted) and the project config; returns the env. */
export function setupClaude(s: ClaudeSetup): Record<string, string> {
  const home = join(s.project, '..', 'home');
  const config = join(home, '.claude-config');
  mkdirSync(config, { recursive: true });
  mkdirSync(join(s.project, '.claude'), { recursive: true });
  const projects = s.trusted === false ? {} : { [s.project]: { hasTrustDialogAccepted: true } };
  // interactive runs also ask whether to use an API key found in the environment: pre-approve ours (its last 20 characters)
  const customApiKeyResponses = { approved: [CLAUDE_API_KEY.slice(-20)], rejected: [] };
  writeFileSync(join(config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, customApiKeyResponses, projects }, null, 2));
  if (s.userAllow) writeFileSync(join(config, 'settings.json'), JSON.stringify({ permissions: { allow: s.userAllow } }, null, 2));
  const hooks = Object.fromEntries(
    Object.entries(s.hooks ?? {}).map(([event, commands]) => [event, [{ hooks: commands.map((command) => ({ type: 'command', command, timeout: 30 })) }]]),
  );
  const settings: Record<string, unknown> = { hooks };
  if (s.allow) settings.permissions = { allow: s.allow };
  writeFileSync(join(s.project, '.claude', 'settings.json'), JSON.stringify(settings, null, 2));
  if (s.mcpServers) writeFileSync(join(s.project, '.mcp.json'), JSON.stringify({ mcpServers: s.mcpServers }, null, 2));
  return {
    ...baseEnv(home),
    CLAUDE_CONFIG_DIR: config,
    ANTHROPIC_BASE_URL: s.endpointUrl,
    ANTHROPIC_API_KEY: CLAUDE_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

// ---------------------------------------------------------------- Codex

export interface CodexSetup {
  project: string;
  endpointUrl: string;
  /** hook commands per event, inline in config.toml (trusted through Codex's app-server) */
  hooks?: Record<string, string[]>;
  /** argv of the `notify` program */
  notify?: string[];
  /**
   * `approve` (default true): default_tools_approval_mode = "approve"; `required` (default true):
   * Codex waits for the server before the first turn instead of its ~1 s grace for optional ones
   */
  mcpServers?: Record<string, { command: string; args: string[]; envVars?: string[]; approve?: boolean; required?: boolean }>;
  /** trust the hooks (default true); untrusted hooks are skipped silently by Codex */
  trustHooks?: boolean;
}

const toml = (v: string) => JSON.stringify(v);
const tomlList = (vs: string[]) => `[${vs.map(toml).join(', ')}]`;

/** Writes CODEX_HOME/config.toml for the scripted endpoint, trusts its hooks; returns the env. */
export async function setupCodex(s: CodexSetup): Promise<Record<string, string>> {
  const home = join(s.project, '..', 'home');
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  const lines = [
    'model = "gpt-scripted"',
    'model_provider = "scripted"',
    'approval_policy = "never"',
    'sandbox_mode = "workspace-write"',
    'check_for_update_on_startup = false',
    ...(s.notify ? [`notify = ${tomlList(s.notify)}`] : []),
    '',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = ${toml(`${s.endpointUrl}/v1`)}`,
    'wire_api = "responses"',
    'env_key = "SCRIPTED_API_KEY"',
    '',
    `[projects.${toml(s.project)}]`,
    'trust_level = "trusted"',
    '',
  ];
  for (const [name, server] of Object.entries(s.mcpServers ?? {})) {
    lines.push(`[mcp_servers.${name}]`, `command = ${toml(server.command)}`, `args = ${tomlList(server.args)}`);
    if (server.envVars) lines.push(`env_vars = ${tomlList(server.envVars)}`);
    if (server.approve !== false) lines.push('default_tools_approval_mode = "approve"');
    if (server.required !== false) lines.push('required = true');
    lines.push('');
  }
  for (const [event, commands] of Object.entries(s.hooks ?? {})) {
    lines.push(`[[hooks.${event}]]`);
    for (const command of commands) lines.push(`[[hooks.${event}.hooks]]`, 'type = "command"', `command = ${toml(command)}`, 'timeout = 30');
    lines.push('');
  }
  writeFileSync(join(codexHome, 'config.toml'), lines.join('\n'));
  const env = { ...baseEnv(home), CODEX_HOME: codexHome, SCRIPTED_API_KEY: 'sk-scripted-endpoint' };
  if (s.hooks && s.trustHooks !== false) await trustCodexHooks(env, s.project);
  return env;
}

/**
 * Codex runs a non-managed hook only when config.toml records its content hash as trusted.
 * Key and hash come from Codex's own app-server (`hooks/list`), never computed here.
 */
export async function trustCodexHooks(env: Record<string, string>, cwd: string): Promise<number> {
  const child = spawn(process.execPath, [CODEX_JS, 'app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
  const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n');
  let buffer = '';
  const listed = await new Promise<any>((resolveList, reject) => {
    const timer = setTimeout(() => reject(new Error('codex app-server did not answer hooks/list within 30 s')), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      for (const line of buffer.split('\n')) {
        try {
          const m = JSON.parse(line);
          if (m.id === 2) {
            clearTimeout(timer);
            m.error ? reject(new Error(JSON.stringify(m.error))) : resolveList(m.result);
          }
        } catch {
          /* a partial line */
        }
      }
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'warrant-tests', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [cwd] } });
  }).finally(() => child.kill());
  const hooks = (listed.data as any[]).flatMap((d) => d.hooks as any[]);
  const errors = (listed.data as any[]).flatMap((d) => d.errors as any[]);
  if (errors.length > 0) throw new Error(`codex hooks/list: ${JSON.stringify(errors)}`);
  const untrusted = hooks.filter((h) => h.trustStatus !== 'trusted');
  const file = join(env.CODEX_HOME!, 'config.toml');
  const state = untrusted.map((h) => `[hooks.state.${toml(h.key)}]\ntrusted_hash = ${toml(h.currentHash)}\n`).join('\n');
  writeFileSync(file, `${readFileSync(file, 'utf8')}\n${state}`);
  return untrusted.length;
}

// ---------------------------------------------------------------- running

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after `timeoutMs`), with stdin closed or given. */
export function runToEnd(cmd: string, args: string[], options: { cwd: string; env: Record<string, string>; input?: string; timeoutMs?: number }): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${options.timeoutMs ?? 90_000} ms]`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs `cmd` under a pseudo-terminal (python3's pty; 120×40), typing `steps` into it. Returns the screen text. */
export function runInPty(
  cmd: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    steps: { wait: number; send: string; until?: string; until_file?: [string, string] }[];
    linger?: number;
  },
): Promise<Run> {
  const spec = JSON.stringify({ cmd, env: options.env, cwd: options.cwd, steps: options.steps, linger: options.linger ?? 3 });
  const total = options.steps.reduce((n, s) => n + s.wait, 0) + (options.linger ?? 3);
  return runToEnd('python3', [join(import.meta.dirname, 'pty-drive.py'), spec], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: (total + 30) * 1000,
  });
}

/** The node script that appends each hook call (argv, stdin, env) as one JSON line to $CAPTURE_FILE. */
export const CAPTURE_HOOK = join(import.meta.dirname, 'capture-hook.mjs');

export interface CapturedHook {
  label: string;
  argv: string[];
  stdin: string;
  payload: any;
  env: Record<string, string>;
  cwd: string;
}

export function readCaptured(file: string): CapturedHook[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const o = JSON.parse(l);
      let payload: unknown = null;
      const raw = o.stdin?.trim() ? o.stdin : o.argv[o.argv.length - 1];
      try {
        payload = raw ? JSON.parse(raw) : null;
      } catch {
        payload = raw;
      }
      return { ...o, payload };
    });
}
