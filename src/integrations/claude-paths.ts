import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

interface ClaudeConfigPaths {
  /** the user's settings.json (permissions, hooks, MCP approvals) */
  userSettings: string;
  /** Claude Code's own state file: user-scope `mcpServers`, per-project trust and approvals */
  state: string;
}

/**
 * Where Claude Code keeps a user's configuration: `$CLAUDE_CONFIG_DIR/{settings.json,.claude.json}`
 * when that is set (or given), else `~/.claude/settings.json` and `~/.claude.json`.
 */
export function claudeConfigPaths(env: NodeJS.ProcessEnv, configDir?: string): ClaudeConfigPaths {
  const dir = configDir ?? env.CLAUDE_CONFIG_DIR;
  if (dir) return { userSettings: join(resolve(dir), 'settings.json'), state: join(resolve(dir), '.claude.json') };
  return { userSettings: join(homedir(), '.claude', 'settings.json'), state: join(homedir(), '.claude.json') };
}
