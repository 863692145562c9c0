#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config-error.js';
import { isWarrantError } from '../core/errors.js';
import { ApiError } from './api-client.js';
import { CliExit, EXIT_FAILURE, EXIT_USAGE, exitCodeFor, exitPolicy } from './output.js';
import { registerSessionCommands } from './commands/sessions.js';
import { registerUserCommands } from './commands/users.js';
import { registerServerCommands } from './commands/server.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerRunCommand } from './commands/run.js';
import { registerIntegrateCommand } from './commands/integrate.js';
import { registerHookCommand } from './commands/hook.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerExportCommand } from './commands/export.js';
import { registerDeliveryCommands } from './commands/deliveries.js';
import { registerAuditCommands } from './commands/audit.js';
import { registerSettingsCommands } from './commands/settings.js';
import { registerDeletionCommands } from './commands/deletions.js';
import { registerCheckCommand, registerProvenanceCommand } from './commands/provenance.js';
import { registerMessageCommands } from './commands/messages.js';
import { registerConversationCommands } from './commands/conversations.js';
import { registerEventsCommand } from './commands/events.js';

/** What every command that talks to a server reads from the environment (docs/api.md). */
const ENVIRONMENT_HELP = `
Environment:
  WARRANT_URL            the server (default http://127.0.0.1:7420)
  WARRANT_TOKEN          your credential: a human token (wrt_h_…), the fleet key or an integration token
  WARRANT_SESSION_TOKEN  inside an agent session: that session's own token (set by \`warrant run\`)
  WARRANT_DATA_DIR       serve and the host commands: the data directory (default ./.warrant)
  WARRANT_OUTPUT         plain or markdown: how renderings print (default: plain on a terminal, markdown when piped)
  serve also reads WARRANT_HOST, WARRANT_PORT, DATABASE_URL, WARRANT_MODE and more (docs/operations.md)
`;

export function buildProgram(): Command {
  const program = new Command('warrant')
    .description('Warrant: the provenance ledger and control plane for fleets of AI agent sessions.')
    .version('0.1.0')
    .showHelpAfterError('(add --help for usage)')
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .addHelpText('after', ENVIRONMENT_HELP);
  registerServerCommands(program);
  registerSessionCommands(program);
  registerUserCommands(program);
  registerMcpCommand(program);
  registerRunCommand(program);
  registerIntegrateCommand(program);
  registerHookCommand(program);
  registerDoctorCommand(program);
  registerExportCommand(program);
  registerDeliveryCommands(program);
  registerAuditCommands(program);
  registerSettingsCommands(program);
  registerDeletionCommands(program);
  registerProvenanceCommand(program);
  registerCheckCommand(program);
  registerMessageCommands(program);
  registerConversationCommands(program);
  registerEventsCommand(program);
  program.commands.forEach(function apply(cmd: Command) {
    cmd.exitOverride();
    cmd.commands.forEach(apply);
  });
  return program;
}

/** Maps every failure to one line on stderr and an exit code (docs/api.md: 0 / 1 / 2). */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
      return EXIT_USAGE;
    }
    if (error instanceof CliExit) {
      if (error.message) process.stderr.write(error.message + '\n');
      return error.code;
    }
    if (error instanceof ApiError) {
      process.stderr.write(`error: ${error.token}: ${error.message}\n`);
      return exitCodeFor(error.token);
    }
    if (isWarrantError(error)) {
      process.stderr.write(`error: ${error.token}: ${error.message}\n`);
      return exitCodeFor(error.token);
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(`error: ${(error as Error).message ?? String(error)}\n`);
    return EXIT_FAILURE;
  }
}

// `void`: main handles its own errors and resolves with the exit code; nothing awaits the entry point
void main(process.argv).then((code) => {
  // serve and mcp never return; everything else exits with its code
  process.exitCode = code;
  if (code !== 0 && exitPolicy.hardExitOnFailure) setTimeout(() => process.exit(code), 250).unref();
});
