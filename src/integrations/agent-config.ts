/**
 * `warrant integrate`: the MCP entry, hooks and permissions an agent CLI needs, merged into
 * existing configuration without ever overwriting what is there (docs/integrations.md).
 * Pure apart from locating this package: text in, text out.
 *
 * Commands are absolute (this Node binary + this package's built entry points), so they run
 * without `warrant` on PATH and without npx's resolution cost on every hook call; a moved or
 * upgraded install is caught by `warrant doctor` and fixed by running integrate again.
 */
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

type AgentProvider = 'claude-code' | 'codex';

export interface WarrantPaths {
  /** the Node binary (process.execPath) */
  node: string;
  /** dist/cli/main.js of this package */
  cliMain: string;
  /** dist/hook/hook-main.cjs of this package */
  hookMain: string;
}

/** This package's root: the same from src/integrations (tsx) and dist/integrations (built). */
const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function warrantPaths(): WarrantPaths {
  return { node: process.execPath, cliMain: join(PACKAGE_ROOT, 'dist', 'cli', 'main.js'), hookMain: join(PACKAGE_ROOT, 'dist', 'hook', 'hook-main.cjs') };
}

/** One shell word: double quotes when that is exact, else single quotes. */
function shellQuote(word: string): string {
  if (!/["$`\\!]/.test(word)) return `"${word}"`;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The environment assignment a hook starts with (see hookCommand). */
const HOOK_ENV_ASSIGNMENT = 'NODE_EXTRA_CA_CERTS=';

/**
 * The hook command an agent runs (through its shell):
 * `NODE_EXTRA_CA_CERTS= "<node>" "<package>/dist/hook/hook-main.cjs" <provider>`.
 * Node parses every root certificate at start when NODE_EXTRA_CA_CERTS names a file (35–60 ms
 * on our bench machine, most of a hook's 50 ms budget); the hook only speaks to a Unix
 * socket, never TLS, so its own start goes without them. The agent's environment is untouched.
 */
export function hookCommand(provider: AgentProvider, paths: WarrantPaths = warrantPaths()): string {
  return `${HOOK_ENV_ASSIGNMENT} ${shellQuote(paths.node)} ${shellQuote(paths.hookMain)} ${provider}`;
}

/**
 * The hook as an argv (Codex `notify` takes an array, run without a shell): `env` empties
 * NODE_EXTRA_CA_CERTS for it, as the shell command does (hookCommand).
 */
export function hookArgv(provider: AgentProvider, paths: WarrantPaths = warrantPaths()): string[] {
  return ['/usr/bin/env', HOOK_ENV_ASSIGNMENT, paths.node, paths.hookMain, provider];
}

export const CLAUDE_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'SubagentStart', 'SubagentStop', 'SessionEnd'] as const;
/** The Claude permission rule that allows every tool of the `warrant` MCP server. */
const CLAUDE_ALLOW_RULE = 'mcp__warrant';
/** Rules that also allow every Warrant tool (read by doctor). */
export const CLAUDE_ALLOW_EQUIVALENTS = [CLAUDE_ALLOW_RULE, 'mcp__warrant__*'];
const LEGACY_MCP = { command: 'warrant', args: ['mcp', '--self'] };

/**
 * The stdio MCP entry. The session's own URL and token reach the server from the agent's
 * environment; the defaults keep Claude Code from refusing the file outside `warrant run`,
 * where the server lists no tools.
 */
function claudeMcpEntry(paths: WarrantPaths = warrantPaths()): Record<string, unknown> {
  return {
    type: 'stdio',
    command: paths.node,
    args: [paths.cliMain, 'mcp', '--self'],
    env: { WARRANT_URL: '${WARRANT_URL:-http://127.0.0.1:7420}', WARRANT_SESSION_TOKEN: '${WARRANT_SESSION_TOKEN:-}' },
  };
}

/**
 * Whether a hook command is one of Warrant's: the entry point (this or another install's
 * path), or the CLI's `hook` alias (`warrant hook <provider>`, or `<node> …/dist/cli/main.js hook <provider>`).
 */
export function isWarrantHook(command: string, provider: AgentProvider): boolean {
  const c = command.trim();
  return c === `warrant hook ${provider}` || new RegExp(`(hook-main\\.c?js["']?|[\\\\/]dist[\\\\/]cli[\\\\/]main\\.js["']?\\s+hook)\\s+${provider}$`).test(c);
}

export interface MergeResult {
  text: string;
  changed: boolean;
  notes: string[];
}

export type Json = Record<string, unknown>;

export function parseJsonObject(text: string | null, file: string): Json {
  if (text === null || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); fix it first — nothing was written.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${file} does not hold a JSON object; nothing was written.`);
  return parsed as Json;
}

function objectAt(config: Json, key: string, file: string): Json {
  const value = config[key] ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${file}: ${key} is not an object; nothing was written.`);
  return value as Json;
}

function render(value: Json): string {
  return JSON.stringify(value, null, 2) + '\n';
}

function finish(existing: string | null, config: Json, changed: boolean, notes: string[]): MergeResult {
  return { text: changed ? render(config) : (existing ?? render(config)), changed, notes };
}

function isLegacyMcp(entry: unknown): boolean {
  const e = entry as Json | null;
  return !!e && e.command === LEGACY_MCP.command && JSON.stringify(e.args) === JSON.stringify(LEGACY_MCP.args);
}

/** Whether an MCP entry runs an older install of this package (same shape, other paths). */
function isStaleWarrantMcp(entry: unknown): boolean {
  const e = entry as Json | null;
  const args = Array.isArray(e?.args) ? (e.args as unknown[]) : [];
  return args.length === 3 && typeof args[0] === 'string' && /[\\/]dist[\\/]cli[\\/]main\.js$/.test(args[0]) && args[1] === 'mcp' && args[2] === '--self';
}

/**
 * An `mcpServers` map (`.mcp.json`, or the user's `.claude.json`): adds `warrant` when absent;
 * upgrades Warrant's own earlier entries (bare `warrant`, or another install's paths); leaves
 * any other entry of that name alone, with a note.
 */
export function mergeClaudeMcpServers(existing: string | null, file: string, paths: WarrantPaths = warrantPaths()): MergeResult {
  const config = parseJsonObject(existing, file);
  const servers = objectAt(config, 'mcpServers', file);
  const entry = claudeMcpEntry(paths);
  const current = servers.warrant;
  if (current !== undefined && JSON.stringify(current) === JSON.stringify(entry)) return finish(existing, config, false, []);
  if (current !== undefined && !isLegacyMcp(current) && !isStaleWarrantMcp(current)) {
    return finish(existing, config, false, [
      `${file} already has a "warrant" server entry that differs; left as it is (warrant doctor checks whether it works).`,
    ]);
  }
  const notes = current === undefined ? [] : [`${file}: the "warrant" server entry of an earlier integrate was upgraded to absolute paths.`];
  return finish(existing, { ...config, mcpServers: { ...servers, warrant: entry } }, true, notes);
}

interface ClaudeSettingsOptions {
  paths?: WarrantPaths;
  /** an absolute data dir that lies inside the project: denied to the agent's file tools */
  deniedDataDir?: string | null;
  /** write the hooks (false: only permissions) */
  hooks?: boolean;
}

/** Claude's absolute-path permission patterns start with `//`. */
export function claudeDenyRules(dataDir: string): string[] {
  const posix = dataDir.split(sep).join('/').replace(/\/+$/, '');
  return [`Read(/${posix}/**)`, `Edit(/${posix}/**)`];
}

/**
 * `.claude/settings.json` (project or user): `permissions.allow` gains `mcp__warrant`,
 * `permissions.deny` the data dir's rules when it lies in the project, and each of the six
 * hooks gains Warrant's command once — an earlier Warrant hook in place is upgraded, every
 * other key, rule and hook is kept.
 */
export function mergeClaudeSettings(existing: string | null, options: ClaudeSettingsOptions = {}, file = '.claude/settings.json'): MergeResult {
  const config = parseJsonObject(existing, file);
  const command = hookCommand('claude-code', options.paths);
  const notes: string[] = [];
  let changed = false;

  const permissions = { ...objectAt(config, 'permissions', file) };
  const allow = Array.isArray(permissions.allow) ? [...(permissions.allow as unknown[])] : [];
  if (!allow.some((r) => typeof r === 'string' && CLAUDE_ALLOW_EQUIVALENTS.includes(r))) {
    allow.push(CLAUDE_ALLOW_RULE);
    permissions.allow = allow;
    changed = true;
  }
  if (options.deniedDataDir) {
    const deny = Array.isArray(permissions.deny) ? [...(permissions.deny as unknown[])] : [];
    for (const rule of claudeDenyRules(options.deniedDataDir)) {
      if (deny.includes(rule)) continue;
      deny.push(rule);
      changed = true;
    }
    permissions.deny = deny;
  }
  if (
    Array.isArray(permissions.deny) &&
    (permissions.deny as unknown[]).some((r) => typeof r === 'string' && CLAUDE_ALLOW_EQUIVALENTS.some((a) => r === a || r.startsWith('mcp__warrant__')))
  ) {
    notes.push(`${file}: permissions.deny names Warrant tools; left as it is (deny wins over allow, so those tools stay refused).`);
  }

  const hooks = { ...objectAt(config, 'hooks', file) };
  if (options.hooks !== false) {
    let upgraded = false;
    for (const event of CLAUDE_HOOK_EVENTS) {
      const groups = Array.isArray(hooks[event]) ? (hooks[event] as Json[]).map((g) => ({ ...g })) : [];
      let present = false;
      for (const group of groups) {
        if (!Array.isArray(group.hooks)) continue;
        group.hooks = (group.hooks as Json[]).map((h) => {
          if (typeof h.command !== 'string' || !isWarrantHook(h.command, 'claude-code')) return h;
          present = true;
          if (h.command === command) return h;
          upgraded = changed = true;
          return { ...h, command };
        });
      }
      if (!present) {
        groups.push({ hooks: [{ type: 'command', command, timeout: 10 }] });
        changed = true;
      }
      hooks[event] = groups;
    }
    if (upgraded) notes.push(`${file}: Warrant hooks of an earlier integrate were upgraded to the command of this install.`);
  }
  return finish(existing, { ...config, permissions, ...(options.hooks !== false ? { hooks } : {}) }, changed, notes);
}

/**
 * `.claude/settings.local.json`: approves the project's `warrant` MCP server
 * (`enabledMcpjsonServers`), as Claude Code records it when the person approves it there —
 * running integrate is that approval. Left alone when all project servers are enabled.
 */
export function mergeClaudeLocalSettings(existing: string | null, file = '.claude/settings.local.json'): MergeResult {
  const config = parseJsonObject(existing, file);
  if (config.enableAllProjectMcpServers === true) return finish(existing, config, false, []);
  const enabled = Array.isArray(config.enabledMcpjsonServers) ? [...(config.enabledMcpjsonServers as unknown[])] : [];
  const notes: string[] = [];
  if (Array.isArray(config.disabledMcpjsonServers) && (config.disabledMcpjsonServers as unknown[]).includes('warrant')) {
    notes.push(`${file}: disabledMcpjsonServers lists "warrant"; left as it is (remove it there to use Warrant's tools).`);
  }
  if (enabled.includes('warrant')) return finish(existing, config, false, notes);
  return finish(existing, { ...config, enabledMcpjsonServers: [...enabled, 'warrant'] }, true, notes);
}

/** Whether `inner` is `outer` or lies below it (both absolute). */
export function isInside(inner: string, outer: string): boolean {
  const rel = relative(resolve(outer), resolve(inner));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
