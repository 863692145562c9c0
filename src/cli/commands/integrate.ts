import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  isInside,
  isWarrantHook,
  mergeClaudeLocalSettings,
  mergeClaudeMcpServers,
  mergeClaudeSettings,
  type MergeResult,
} from '../../integrations/agent-config.js';
import { codexConfigPaths, mergeCodexHooksJson, mergeCodexToml } from '../../integrations/codex-config.js';
import { claudeConfigPaths } from '../../integrations/claude-paths.js';
import { listCodexHooks, trustCodexHooksInToml } from '../../integrations/codex-app-server.js';
import { printText } from '../output.js';

function readOrNull(path: string): string | null {
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}

function apply(path: string, merge: (existing: string | null) => MergeResult, write: boolean): string[] {
  const result = merge(readOrNull(path));
  const out = [...result.notes.map((n) => `note: ${n}`)];
  if (!result.changed) out.push(`${path}: already integrated, nothing to change`);
  else if (write) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, result.text);
    out.push(`${path}: merged`);
  } else out.push(`--- ${path} (would become; run with --write to merge)`, result.text.trimEnd());
  return out;
}

/**
 * The Warrant data dir the agent must not read, when it lies in the project: --data-dir,
 * else WARRANT_DATA_DIR, else `<project>/.warrant` (the server's default when started there).
 */
function dataDirInProject(project: string, dataDir: string | undefined, env: NodeJS.ProcessEnv): string | null {
  const candidate = dataDir ? resolve(dataDir) : env.WARRANT_DATA_DIR ? resolve(env.WARRANT_DATA_DIR) : join(project, '.warrant');
  return isInside(candidate, project) ? candidate : null;
}

interface ClaudeOpts {
  dir: string;
  write?: boolean;
  user?: boolean;
  configDir?: string;
  dataDir?: string;
}

/** `warrant integrate claude-code|codex [--write]` (docs/integrations.md). Nothing is written without --write. */
export function registerIntegrateCommand(program: Command): void {
  const integrate = program.command('integrate').description('wire an agent CLI to Warrant: the self-session MCP server, hooks and permissions');
  integrate
    .command('claude-code')
    .description(
      'print (or with --write merge) the MCP entry, the permission rules and six hooks into the project (.mcp.json, .claude/settings.json, .claude/settings.local.json) or, with --user, the user settings',
    )
    .option('--dir <dir>', 'the project directory', '.')
    .option('--write', 'merge into the files (never overwriting other keys)')
    .option(
      '--user',
      "write the MCP entry, the allow rule and the hooks into the user's Claude Code settings instead (headless fleets: no per-project trust or approval needed)",
    )
    .option('--config-dir <dir>', "Claude Code's config dir (default: $CLAUDE_CONFIG_DIR, else ~/.claude)")
    .option(
      '--data-dir <dir>',
      "the Warrant server's data dir, denied to the agent when it lies in the project (default: $WARRANT_DATA_DIR, else <dir>/.warrant)",
    )
    .action((opts: ClaudeOpts) => {
      const dir = resolve(opts.dir);
      const write = !!opts.write;
      const denied = dataDirInProject(dir, opts.dataDir, process.env);
      const out: string[] = [];
      if (opts.user) {
        const paths = claudeConfigPaths(process.env, opts.configDir);
        out.push(...apply(paths.state, (t) => mergeClaudeMcpServers(t, paths.state), write));
        out.push(...apply(paths.userSettings, (t) => mergeClaudeSettings(t, { deniedDataDir: denied }, paths.userSettings), write));
      } else {
        out.push(...apply(join(dir, '.mcp.json'), (t) => mergeClaudeMcpServers(t, '.mcp.json'), write));
        out.push(...apply(join(dir, '.claude', 'settings.json'), (t) => mergeClaudeSettings(t, { deniedDataDir: denied }), write));
        out.push(...apply(join(dir, '.claude', 'settings.local.json'), (t) => mergeClaudeLocalSettings(t), write));
      }
      if (denied)
        out.push(
          `note: the Warrant data dir ${denied} lies inside the project: its Read/Edit deny rules keep the agent's file tools out, not its shell — run the server with a data dir elsewhere (see docs/integrations.md).`,
        );
      printText(out.join('\n'));
    });
  integrate
    .command('codex')
    .description("print (or with --write merge) the MCP server, notify and hooks into Codex's config.toml and hooks.json")
    .option('--config <file>', 'the Codex config file (default: $CODEX_HOME/config.toml, else ~/.codex/config.toml)')
    .option('--write', 'merge into the files (never overwriting other keys)')
    .option(
      '--trust-hooks',
      "with --write: record Warrant's hooks as trusted in config.toml, with the hashes Codex's own app-server reports (Codex skips untrusted hooks)",
    )
    .option('--codex <path>', 'the codex executable for --trust-hooks', 'codex')
    .option('--dir <dir>', 'the project directory (where Codex lists the hooks that apply)', '.')
    .action(async (opts: { config?: string; write?: boolean; trustHooks?: boolean; codex: string; dir: string }) => {
      const paths = codexConfigPaths(process.env, opts.config);
      const write = !!opts.write;
      const out = [...apply(paths.config, (t) => mergeCodexToml(t), write), ...apply(paths.hooks, (t) => mergeCodexHooksJson(t, paths.hooks), write)];
      if (opts.trustHooks && write) {
        // Codex finds config.toml through CODEX_HOME; point it at the file integrate wrote
        const env = { ...process.env, CODEX_HOME: dirname(paths.config) };
        const hooks = (await listCodexHooks(opts.codex, resolve(opts.dir), env)).filter(
          (h) => isWarrantHook(h.command, 'codex') && h.trustStatus !== 'trusted',
        );
        if (hooks.length) writeFileSync(paths.config, trustCodexHooksInToml(readFileSync(paths.config, 'utf8'), hooks));
        out.push(
          hooks.length
            ? `${paths.config}: ${hooks.length} Warrant hooks recorded as trusted (hashes from codex app-server)`
            : `${paths.config}: Warrant's hooks were already trusted`,
        );
      } else if (write)
        out.push(
          "note: Codex skips hooks it has not trusted: review them in Codex, or run again with --trust-hooks (re-trust after every integrate that changed a hook's command).",
        );
      printText(out.join('\n'));
    });
}
