/**
 * Codex's side of `warrant integrate codex`: `config.toml` (the MCP server table and `notify`)
 * and `hooks.json` next to it (lifecycle hooks, the same event → matcher group → handler shape
 * as Claude Code's). Merged as text, never overwriting (docs/integrations.md).
 */
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { hookArgv, hookCommand, isWarrantHook, parseJsonObject, warrantPaths, type Json, type MergeResult, type WarrantPaths } from './agent-config.js';

export const CODEX_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'SubagentStart', 'SubagentStop', 'SessionEnd'] as const;

interface CodexConfigPaths {
  config: string;
  hooks: string;
}

/** `--config`, else `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`; hooks.json beside it. */
export function codexConfigPaths(env: NodeJS.ProcessEnv, config?: string): CodexConfigPaths {
  const file = config ? resolve(config) : join(env.CODEX_HOME ? resolve(env.CODEX_HOME) : join(homedir(), '.codex'), 'config.toml');
  return { config: file, hooks: join(dirname(file), 'hooks.json') };
}

/** A TOML basic string. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

function tomlArray(values: string[]): string {
  return `[${values.map(tomlString).join(', ')}]`;
}

const TABLE = '[mcp_servers.warrant]';

function codexMcpBlock(paths: WarrantPaths): string[] {
  // approve: headless `codex exec` refuses a writing tool that needs approval; required: without
  // it Codex starts the first turn after ~1 s without a server still starting (docs/integrations.md)
  return [
    TABLE,
    `command = ${tomlString(paths.node)}`,
    `args = ${tomlArray([paths.cliMain, 'mcp', '--self'])}`,
    'env_vars = ["WARRANT_URL", "WARRANT_SESSION_TOKEN"]',
    'default_tools_approval_mode = "approve"',
    'required = true',
  ];
}

const LEGACY_NOTIFY = /^\s*notify\s*=\s*\[\s*"warrant"\s*,\s*"hook"\s*,\s*"codex"\s*\]\s*$/;
const WARRANT_NOTIFY = /^\s*notify\s*=\s*\[.*(hook-main\.c?js"|[\\/]dist[\\/]cli[\\/]main\.js"\s*,\s*"hook")\s*,\s*"codex"\s*\]\s*$/;

/**
 * `config.toml`: `notify` (before the first table: top-level keys must precede tables) and the
 * `[mcp_servers.warrant]` table, each only when absent. Warrant's own earlier lines (a bare
 * `warrant` command, or another install's paths) are upgraded in place; anything else is kept.
 */
export function mergeCodexToml(existing: string | null, paths: WarrantPaths = warrantPaths()): MergeResult {
  const original = existing ?? '';
  const lines = original === '' ? [] : original.replace(/\n$/, '').split('\n');
  const notes: string[] = [];
  const notify = `notify = ${tomlArray(hookArgv('codex', paths))}`;
  const firstTable = lines.findIndex((l) => /^\s*\[/.test(l));
  const topEnd = firstTable < 0 ? lines.length : firstTable;
  const notifyAt = lines.slice(0, topEnd).findIndex((l) => /^\s*notify\s*=/.test(l));
  if (notifyAt < 0) {
    // after the last top-level line, so a blank line before the first table stays where it was
    let at = topEnd;
    while (at > 0 && lines[at - 1]!.trim() === '') at--;
    lines.splice(at, 0, notify, ...(firstTable >= 0 && at === topEnd ? [''] : []));
  } else if (lines[notifyAt] !== notify) {
    if (LEGACY_NOTIFY.test(lines[notifyAt]!) || WARRANT_NOTIFY.test(lines[notifyAt]!)) {
      lines[notifyAt] = notify;
      notes.push('config.toml: the notify hook of an earlier integrate was upgraded to the command of this install.');
    } else notes.push('config.toml already sets notify to another command; left as it is (the lifecycle hooks in hooks.json still report idle turns).');
  }
  const block = codexMcpBlock(paths);
  const tableAt = lines.findIndex((l) => l.trim() === TABLE);
  if (tableAt < 0) {
    while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
    if (lines.length > 0) lines.push('');
    lines.push(...block);
  } else {
    const end = lines.findIndex((l, i) => i > tableAt && /^\s*\[/.test(l));
    const body = lines.slice(tableAt + 1, end < 0 ? lines.length : end);
    const commandAt = body.findIndex((l) => /^\s*command\s*=/.test(l));
    const argsAt = body.findIndex((l) => /^\s*args\s*=/.test(l));
    const ours =
      commandAt >= 0 &&
      (/^\s*command\s*=\s*"warrant"\s*$/.test(body[commandAt]!) || /dist[\\/]cli[\\/]main\.js"\s*,\s*"mcp"\s*,\s*"--self"\s*\]/.test(body[argsAt] ?? ''));
    if (ours) {
      // Warrant's own table: the command upgraded, keys it lacks added, values it has kept
      const missing = block
        .slice(3)
        .filter((line) => !body.some((l) => l.trim().startsWith(line.split(' =')[0]! + ' ') || l.trim().startsWith(line.split(' =')[0]! + '=')));
      let bodyEnd = tableAt + 1 + body.length;
      while (bodyEnd > tableAt + 1 && lines[bodyEnd - 1]!.trim() === '') bodyEnd--;
      lines.splice(bodyEnd, 0, ...missing);
      if (body[commandAt] !== block[1] || body[argsAt] !== block[2]) {
        lines[tableAt + 1 + commandAt] = block[1]!;
        if (argsAt >= 0) lines[tableAt + 1 + argsAt] = block[2]!;
        else lines.splice(tableAt + 2 + commandAt, 0, block[2]!);
        notes.push('config.toml: the [mcp_servers.warrant] command of an earlier integrate was upgraded to absolute paths.');
      }
      if (missing.length) notes.push(`config.toml: [mcp_servers.warrant] gained ${missing.map((l) => l.split(' =')[0]).join(', ')}.`);
    } else if (!ours)
      notes.push('config.toml already has an [mcp_servers.warrant] table that differs; left as it is (warrant doctor checks whether it works).');
  }
  const text = lines.join('\n') + '\n';
  const changed = text !== original;
  return { text: changed ? text : original, changed, notes };
}

/** `hooks.json`: each lifecycle event gains Warrant's hook once; earlier Warrant hooks are upgraded. */
export function mergeCodexHooksJson(existing: string | null, file = 'hooks.json', paths: WarrantPaths = warrantPaths()): MergeResult {
  const config = parseJsonObject(existing, file);
  const rawHooks = config.hooks ?? {};
  if (typeof rawHooks !== 'object' || rawHooks === null || Array.isArray(rawHooks)) throw new Error(`${file}: hooks is not an object; nothing was written.`);
  const hooks = { ...(rawHooks as Json) };
  const command = hookCommand('codex', paths);
  let changed = false;
  let upgraded = false;
  for (const event of CODEX_HOOK_EVENTS) {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as Json[]).map((g) => ({ ...g })) : [];
    let present = false;
    for (const group of groups) {
      if (!Array.isArray(group.hooks)) continue;
      group.hooks = (group.hooks as Json[]).map((h) => {
        if (typeof h.command !== 'string' || !isWarrantHook(h.command, 'codex')) return h;
        present = true;
        if (h.command === command) return h;
        upgraded = changed = true;
        return { ...h, command };
      });
    }
    if (!present) {
      // Codex clamps a SessionEnd hook's timeout to 3 s (and warns on every run otherwise)
      groups.push({ hooks: [{ type: 'command', command, timeout: event === 'SessionEnd' ? 3 : 10 }] });
      changed = true;
    }
    hooks[event] = groups;
  }
  const notes = upgraded ? [`${file}: Warrant hooks of an earlier integrate were upgraded to the command of this install.`] : [];
  return { text: changed ? JSON.stringify({ ...config, hooks }, null, 2) + '\n' : (existing ?? ''), changed, notes };
}

/**
 * The few TOML shapes doctor reads back: `key = "string" | ["strings"] | true/false/number`
 * at the top level and in `[table.name]` sections. Anything else is skipped, not guessed.
 */
export function readTomlTables(text: string): Map<string, Record<string, unknown>> {
  const tables = new Map<string, Record<string, unknown>>([['', {}]]);
  let current = tables.get('')!;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[([^[\]]+)\]$/.exec(line);
    if (header) {
      const name = header[1]!.trim();
      current = tables.get(name) ?? {};
      tables.set(name, current);
      continue;
    }
    const kv = /^([A-Za-z0-9_.-]+)\s*=\s*(.+)$/.exec(line);
    if (!kv) continue;
    const value = kv[2]!.trim();
    try {
      if (value.startsWith('"') || value.startsWith('[')) current[kv[1]!] = JSON.parse(value);
      else if (value === 'true' || value === 'false') current[kv[1]!] = value === 'true';
      else if (/^-?\d+(\.\d+)?$/.test(value)) current[kv[1]!] = Number(value);
    } catch {
      /* not a shape we read (literal strings, inline tables): skipped */
    }
  }
  return tables;
}
