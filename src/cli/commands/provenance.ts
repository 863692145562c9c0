import { Option, type Command } from 'commander';
import { ApiClient, clientOptionsFromEnv, refPath } from '../api-client.js';
import { CliExit, printJson, printMarkdown } from '../output.js';

/** `warrant provenance <ref>`: the server's provenance rendering (the same as MCP's). */
export function registerProvenanceCommand(program: Command): void {
  program
    .command('provenance <ref>')
    .description("a session's provenance: its hierarchy (and, with the human-message record, what humans asked)")
    .addOption(new Option('--format <format>', 'markdown, json or prov-json (W3C PROV-JSON)').choices(['markdown', 'json', 'prov-json']).default('markdown'))
    .option('--limit <n>', 'human messages per page (≤ 200; newest first)')
    .option('--cursor <cursor>', 'the next page of human messages (next_cursor)')
    .option('--json', 'print JSON (same as --format json)')
    .action(async (ref: string, opts: { format: 'markdown' | 'json' | 'prov-json'; limit?: string; cursor?: string; json?: boolean }) => {
      const client = new ApiClient(clientOptionsFromEnv(process.env));
      const path = `/api/v1/sessions/${refPath(ref)}/provenance`;
      if (opts.format === 'prov-json') return printJson(await client.json('GET', `${path}?format=prov-json`));
      const qs = new URLSearchParams();
      if (opts.limit) qs.set('limit', opts.limit);
      if (opts.cursor) qs.set('cursor', opts.cursor);
      if (opts.json || opts.format === 'json') return printJson(await client.json('GET', `${path}?${qs}`));
      qs.set('format', 'markdown');
      printMarkdown(await client.text('GET', `${path}?${qs}`));
    });
}

/** docs/api.md: `warrant check <ref>` exits 0 here, 3 elsewhere, 4 none, 5 cannot-say — a scriptable gate. */
const CHECK_EXIT_CODES = { here: 0, elsewhere: 3, none: 4, 'cannot-say': 5 } as const;

export function registerCheckCommand(program: Command): void {
  program
    .command('check <ref>')
    .description('did a named human ask for this? exit 0 here, 3 elsewhere, 4 none, 5 cannot-say')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: { json?: boolean }) => {
      const client = new ApiClient(clientOptionsFromEnv(process.env));
      const path = `/api/v1/sessions/${refPath(ref)}/warrant`;
      const verdict = await client.json<{ answer: keyof typeof CHECK_EXIT_CODES }>('GET', path);
      if (opts.json) printJson(verdict);
      else printMarkdown(await client.text('GET', `${path}?format=markdown`));
      const code = CHECK_EXIT_CODES[verdict.answer];
      if (code !== 0) throw new CliExit(code);
    });
}
