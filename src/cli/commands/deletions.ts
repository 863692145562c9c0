import type { Command } from 'commander';
import { ApiClient, clientOptionsFromEnv } from '../api-client.js';
import { printJson, printMarkdown } from '../output.js';

/** `warrant deletions list`: the deletion records (docs/attribution.md), from the server. */
export function registerDeletionCommands(program: Command): void {
  const deletions = program.command('deletions').description('deletion records: who deleted which session, on whose behalf');
  deletions
    .command('list')
    .description('list deletion records, newest first (only sessions you may see)')
    .option('--actor <actor>', 'fleet, system, session:<id>, client:<name>, human:<key> or a roster key')
    .option('--since <time>', 'deleted at or after (ISO 8601)')
    .option('--until <time>', 'deleted before (ISO 8601)')
    .option('--uid <uid>', 'the deleted session uid')
    .option('--limit <n>', 'page size (≤ 200)')
    .option('--cursor <cursor>', 'the next page')
    .option('--json', 'print JSON')
    .action(async (opts: { actor?: string; since?: string; until?: string; uid?: string; limit?: string; cursor?: string; json?: boolean }) => {
      const qs = new URLSearchParams();
      if (opts.actor) qs.set('actor', opts.actor);
      if (opts.since) qs.set('since', opts.since);
      if (opts.until) qs.set('until', opts.until);
      if (opts.uid) qs.set('session_uid', opts.uid);
      if (opts.limit) qs.set('limit', opts.limit);
      if (opts.cursor) qs.set('cursor', opts.cursor);
      const client = new ApiClient(clientOptionsFromEnv(process.env));
      if (opts.json) return printJson(await client.json('GET', `/api/v1/session_deletions?${qs}`));
      qs.set('format', 'markdown');
      printMarkdown(await client.text('GET', `/api/v1/session_deletions?${qs}`));
    });
}
