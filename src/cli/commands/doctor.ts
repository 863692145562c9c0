import { resolve } from 'node:path';
import type { Command } from 'commander';
import { clientOptionsFromEnv } from '../api-client.js';
import { claudeChecks } from '../doctor/claude-checks.js';
import { codexChecks } from '../doctor/codex-checks.js';
import { dataDirCheck, type DoctorContext } from '../doctor/common.js';
import { checkServer, type Check } from '../doctor/probes.js';
import { CliExit, EXIT_FAILURE, EXIT_USAGE, printText } from '../output.js';

interface DoctorOpts {
  dir: string;
  provider: string;
  configDir?: string;
  config?: string;
  dataDir?: string;
  codex: string;
}

function line(check: Check): string {
  if (check.skipped) return `skip  ${check.name}: ${check.detail}`;
  return check.ok ? `ok    ${check.name}: ${check.detail}` : `FAIL  ${check.name}: ${check.detail}\n      fix: ${check.fix}`;
}

/** `warrant doctor`: an integration checked from the agent's side; exit 0 only when every check passes. */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      "check an agent integration from the agent's side: server, MCP entry and its tools, hooks, permissions, approval and trust; each failure with its fix",
    )
    .option('--dir <dir>', 'the project directory the agent runs in', '.')
    .option('--provider <provider>', 'claude-code or codex', 'claude-code')
    .option('--config-dir <dir>', "Claude Code's config dir (default: $CLAUDE_CONFIG_DIR, else ~/.claude and ~/.claude.json)")
    .option('--config <file>', "Codex's config.toml (default: $CODEX_HOME/config.toml, else ~/.codex/config.toml)")
    .option('--data-dir <dir>', "the Warrant server's data dir, when it is not WARRANT_DATA_DIR")
    .option('--codex <path>', 'the codex executable, to read which hooks Codex trusts', 'codex')
    .action(async (opts: DoctorOpts) => {
      if (opts.provider !== 'claude-code' && opts.provider !== 'codex')
        throw new CliExit(EXIT_USAGE, `error: --provider is claude-code or codex, not ${JSON.stringify(opts.provider)}`);
      const { baseUrl } = clientOptionsFromEnv(process.env);
      const server = await checkServer(baseUrl);
      const ctx: DoctorContext = {
        dir: resolve(opts.dir),
        baseUrl,
        env: process.env,
        serverUp: server.ok,
        codex: opts.codex,
        ...(opts.configDir ? { configDir: opts.configDir } : {}),
        ...(opts.config ? { codexConfig: opts.config } : {}),
        ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
      };
      const checks = [server, ...(opts.provider === 'claude-code' ? await claudeChecks(ctx) : await codexChecks(ctx))];
      const dataDir = dataDirCheck(ctx);
      if (dataDir) checks.push(dataDir);
      const failed = checks.filter((c) => !c.ok).length;
      const ran = checks.filter((c) => !c.skipped).length;
      const skipped = checks.length - ran ? ` (${checks.length - ran} skipped)` : '';
      printText(
        [
          `warrant doctor: ${opts.provider} in ${ctx.dir}`,
          ...checks.map(line),
          failed ? `${failed} of ${ran} checks failed${skipped}` : `all ${ran} checks passed${skipped}`,
        ].join('\n'),
      );
      if (failed) throw new CliExit(EXIT_FAILURE);
    });
}
