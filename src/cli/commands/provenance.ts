import { Option, type Command } from 'commander';
import { ApiClient, clientOptionsFromEnv, refPath } from '../api-client.js';
import { printJson, printText } from '../output.js';

/** `warrant provenance <ref>`: the server's provenance rendering (the same as MCP's). */
export function registerProvenanceCommand(program: Command): void {
  program
    .command('provenance <ref>')
    .description("a session's provenance: its hierarchy (and, with the human-message record, what humans asked)")
    .addOption(new Option('--format <format>', 'markdown or json').choices(['markdown', 'json']).default('markdown'))
    .option('--json', 'print JSON (same as --format json)')
    .action(async (ref: string, opts: { format: 'markdown' | 'json'; json?: boolean }) => {
      const client = new ApiClient(clientOptionsFromEnv(process.env));
      const path = `/api/v1/sessions/${refPath(ref)}/provenance`;
      if (opts.json || opts.format === 'json') return printJson(await client.json('GET', path));
      printText(await client.text('GET', `${path}?format=markdown`));
    });
}
