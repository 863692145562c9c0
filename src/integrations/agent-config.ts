/**
 * `warrant integrate`: the MCP entry and hooks an agent CLI needs, merged into existing
 * configuration without ever overwriting what is there (spec 08). Pure: text in, text out.
 */

export const WARRANT_MCP_ENTRY = {
  command: 'warrant',
  args: ['mcp', '--self'],
  env: { WARRANT_URL: '${WARRANT_URL}', WARRANT_SESSION_TOKEN: '${WARRANT_SESSION_TOKEN}' },
};

export const CLAUDE_HOOK_COMMAND = 'warrant hook claude-code';
export const CLAUDE_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop'] as const;

export interface MergeResult {
  text: string;
  changed: boolean;
  notes: string[];
}

type Json = Record<string, unknown>;

function parseObject(text: string | null, file: string): Json {
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

function render(value: Json): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/** `.mcp.json`: adds `mcpServers.warrant` unless an entry of that name exists. */
export function mergeClaudeMcpJson(existing: string | null): MergeResult {
  const config = parseObject(existing, '.mcp.json');
  const servers = (config.mcpServers ?? {}) as Json;
  if (typeof servers !== 'object' || Array.isArray(servers)) throw new Error('.mcp.json: mcpServers is not an object; nothing was written.');
  if (servers.warrant !== undefined) {
    const same = JSON.stringify(servers.warrant) === JSON.stringify(WARRANT_MCP_ENTRY);
    return { text: existing ?? render(config), changed: false, notes: same ? [] : ['.mcp.json already has a "warrant" server entry that differs; left as it is.'] };
  }
  return { text: render({ ...config, mcpServers: { ...servers, warrant: WARRANT_MCP_ENTRY } }), changed: true, notes: [] };
}

/** `.claude/settings.json`: adds the three hooks, each once, keeping every other key and hook. */
export function mergeClaudeSettings(existing: string | null): MergeResult {
  const config = parseObject(existing, '.claude/settings.json');
  const hooks = { ...((config.hooks ?? {}) as Json) };
  let changed = false;
  for (const event of CLAUDE_HOOK_EVENTS) {
    const groups = Array.isArray(hooks[event]) ? [...(hooks[event] as Json[])] : [];
    const present = groups.some((g) => Array.isArray(g.hooks) && (g.hooks as Json[]).some((h) => h.command === CLAUDE_HOOK_COMMAND));
    if (present) continue;
    groups.push({ hooks: [{ type: 'command', command: CLAUDE_HOOK_COMMAND, timeout: 10 }] });
    hooks[event] = groups;
    changed = true;
  }
  if (!changed) return { text: existing ?? render(config), changed: false, notes: [] };
  return { text: render({ ...config, hooks }), changed: true, notes: [] };
}

const CODEX_TABLE = '[mcp_servers.warrant]';
const CODEX_BLOCK = [
  CODEX_TABLE,
  'command = "warrant"',
  'args = ["mcp", "--self"]',
  'env_vars = ["WARRANT_URL", "WARRANT_SESSION_TOKEN"]',
].join('\n');
const CODEX_NOTIFY = 'notify = ["warrant", "hook", "codex"]';

/**
 * Codex `config.toml`: appends the MCP server table and puts the `notify` hook before the
 * first table (top-level keys must precede tables), each only when absent.
 */
export function mergeCodexToml(existing: string | null): MergeResult {
  let text = existing ?? '';
  let changed = false;
  const notes: string[] = [];
  const lines = text.split('\n');
  const firstTable = lines.findIndex((l) => /^\s*\[/.test(l));
  const topLevel = firstTable < 0 ? lines : lines.slice(0, firstTable);
  if (!topLevel.some((l) => /^\s*notify\s*=/.test(l))) {
    const insertAt = firstTable < 0 ? lines.length : firstTable;
    lines.splice(insertAt, 0, CODEX_NOTIFY, ...(firstTable < 0 ? [] : ['']));
    text = lines.join('\n');
    changed = true;
  } else if (!topLevel.some((l) => l.includes('"warrant", "hook", "codex"'))) {
    notes.push('config.toml already sets notify to another command; left as it is (Warrant will not see idle turns).');
  }
  if (!text.includes(CODEX_TABLE)) {
    text = `${text.replace(/\n*$/, '')}${text.trim() === '' ? '' : '\n\n'}${CODEX_BLOCK}\n`;
    changed = true;
  }
  if (!text.endsWith('\n')) text += '\n';
  return { text: changed ? text : (existing ?? text), changed, notes };
}
