import type { Command } from 'commander';
import { ApiClient, clientOptionsFromEnv } from '../api-client.js';
import { printJson, printText } from '../output.js';

const ACTOR_FORMS = 'a roster key, human:<key>, session:<id>, client:<name>, fleet or system';

/** `warrant events`: the reverse question (docs/attribution.md "What a person caused"), from the server. */
export function registerEventsCommand(program: Command): void {
  program
    .command('events')
    .description('events across sessions by actor, cause or credential, newest first (only sessions you may see)')
    .option('--actor <actor>', `who acted: ${ACTOR_FORMS}`)
    .option('--cause <actor>', `on whose behalf: ${ACTOR_FORMS}`)
    .option('--credential <id>', "a credential id: every act made with that token (a revoked or leaked token's footprint)")
    .option('--limit <n>', 'page size (≤ 200)')
    .option('--cursor <cursor>', 'the next page')
    .option('--json', 'print JSON')
    .action(async (opts: { actor?: string; cause?: string; credential?: string; limit?: string; cursor?: string; json?: boolean }) => {
      const qs = new URLSearchParams();
      if (opts.actor) qs.set('actor', opts.actor);
      if (opts.cause) qs.set('cause', opts.cause);
      if (opts.credential) qs.set('credential', opts.credential);
      if (opts.limit) qs.set('limit', opts.limit);
      if (opts.cursor) qs.set('cursor', opts.cursor);
      const client = new ApiClient(clientOptionsFromEnv(process.env));
      if (opts.json) return printJson(await client.json('GET', `/api/v1/events?${qs}`));
      qs.set('format', 'markdown');
      printText(await client.text('GET', `/api/v1/events?${qs}`));
    });
}
