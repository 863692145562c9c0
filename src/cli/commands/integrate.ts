import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import type { Command } from 'commander';
import { mergeClaudeMcpJson, mergeClaudeSettings, mergeCodexToml, type MergeResult } from '../../integrations/agent-config.js';
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

/** `warrant integrate claude-code|codex [--write]` (spec 08). Nothing is written without --write. */
export function registerIntegrateCommand(program: Command): void {
  const integrate = program.command('integrate').description('wire an agent CLI to Warrant: the self-session MCP server and hooks');
  integrate
    .command('claude-code')
    .description("print (or with --write merge) the MCP entry into .mcp.json and the hooks into .claude/settings.json")
    .option('--dir <dir>', 'the project directory', '.')
    .option('--write', 'merge into the files (never overwriting other keys)')
    .action((opts: { dir: string; write?: boolean }) => {
      const dir = resolve(opts.dir);
      printText([...apply(join(dir, '.mcp.json'), mergeClaudeMcpJson, !!opts.write), ...apply(join(dir, '.claude', 'settings.json'), mergeClaudeSettings, !!opts.write)].join('\n'));
    });
  integrate
    .command('codex')
    .description("print (or with --write merge) the MCP server and notify hook into Codex's config.toml")
    .option('--config <file>', 'the Codex config file', join(process.env.CODEX_HOME || join(homedir(), '.codex'), 'config.toml'))
    .option('--write', 'merge into the file (never overwriting other keys)')
    .action((opts: { config: string; write?: boolean }) => {
      printText(apply(resolve(opts.config), mergeCodexToml, !!opts.write).join('\n'));
    });
}
