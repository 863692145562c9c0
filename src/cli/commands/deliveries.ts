import type { Command } from 'commander';
import { ApiClient, clientOptionsFromEnv, refPath } from '../api-client.js';
import { CliExit, EXIT_USAGE, printJson, printText, printMarkdown } from '../output.js';

function client(): ApiClient {
  return new ApiClient(clientOptionsFromEnv(process.env));
}

/** The words of a message: the arguments joined, or stdin for a lone `-`. */
async function textOf(words: string[]): Promise<string> {
  if (words.length === 1 && words[0] === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  const text = words.join(' ');
  if (text.trim() === '') throw new CliExit(EXIT_USAGE, 'error: the message is empty.');
  return text;
}

function actingBody(opts: { actingSession?: string }): Record<string, string> {
  return opts.actingSession ? { acting_session_id: opts.actingSession } : {};
}

const ACTING_HELP = 'with the fleet key: the session you act for (declared)';

/**
 * `warrant follow-up`, `warrant enqueue`, `warrant interrupt`, `warrant enqueued …`,
 * `warrant uncle remove`, `warrant deliveries resend`, `warrant inbox list`: transport to the REST routes, printing the
 * server's markdown rendering (or `--json`).
 */
export function registerDeliveryCommands(program: Command): void {
  const newItem = (name: string, path: string, description: string) =>
    program
      .command(`${name} <ref> <text...>`)
      .description(`${description} (\`-\` reads the text from stdin)`)
      .option('--acting-session <ref>', ACTING_HELP)
      .option('--json', 'print JSON')
      .action(async (ref: string, words: string[], opts: { actingSession?: string; json?: boolean }) => {
        const body = { content: await textOf(words), ...actingBody(opts) };
        const url = `/api/v1/sessions/${refPath(ref)}/${path}`;
        if (opts.json) return printJson(await client().json('POST', url, body));
        printMarkdown(await client().text('POST', `${url}?format=markdown`, body));
      });

  newItem('follow-up', 'follow_up', "deliver a follow-up: the session's next user turn");
  newItem('enqueue', 'enqueued_messages', 'enqueue a message, delivered when the session is idle');

  program
    .command('interrupt <ref> [text...]')
    .description('interrupt a session with new text, or with a queued message (--message); `-` reads the text from stdin')
    .option('--message <id>', 'interrupt with this enqueued message instead of new text')
    .option('--acting-session <ref>', ACTING_HELP)
    .option('--json', 'print JSON')
    .action(async (ref: string, words: string[], opts: { message?: string; actingSession?: string; json?: boolean }) => {
      if ((opts.message === undefined) === (words.length === 0)) throw new CliExit(EXIT_USAGE, 'error: give either text or --message <id>, not both.');
      const url =
        opts.message !== undefined
          ? `/api/v1/sessions/${refPath(ref)}/enqueued_messages/${encodeURIComponent(opts.message)}/interrupt`
          : `/api/v1/sessions/${refPath(ref)}/interrupt`;
      const body = opts.message !== undefined ? actingBody(opts) : { content: await textOf(words), ...actingBody(opts) };
      if (opts.json) return printJson(await client().json('POST', url, body));
      printMarkdown(await client().text('POST', `${url}?format=markdown`, body));
    });

  const enqueued = program.command('enqueued').description("a session's queue of enqueued messages");
  enqueued
    .command('list <ref>')
    .description('the queue: messages not yet delivered (--all for every state)')
    .option('--all', 'every state, delivered and withdrawn included')
    .option('--cursor <cursor>', 'the next page')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: { all?: boolean; cursor?: string; json?: boolean }) => {
      const qs = new URLSearchParams();
      if (opts.all) qs.set('state', 'all');
      if (opts.cursor) qs.set('cursor', opts.cursor);
      const url = `/api/v1/sessions/${refPath(ref)}/enqueued_messages`;
      if (opts.json) return printJson(await client().json('GET', `${url}?${qs}`));
      qs.set('format', 'markdown');
      printMarkdown(await client().text('GET', `${url}?${qs}`));
    });
  for (const [name, method, suffix, description] of [
    ['send-now', 'POST', '/send_now', 'send a queued message now (the next turn)'],
    ['withdraw', 'DELETE', '', 'withdraw a pending message before delivery'],
  ] as const) {
    enqueued
      .command(`${name} <ref> <message-id>`)
      .description(description)
      .option('--acting-session <ref>', ACTING_HELP)
      .option('--json', 'print JSON')
      .action(async (ref: string, mid: string, opts: { actingSession?: string; json?: boolean }) => {
        const qs = new URLSearchParams();
        if (method === 'DELETE' && opts.actingSession) qs.set('acting_session_id', opts.actingSession);
        const url = `/api/v1/sessions/${refPath(ref)}/enqueued_messages/${encodeURIComponent(mid)}${suffix}`;
        const body = method === 'POST' ? actingBody(opts) : undefined;
        if (opts.json) return printJson(await client().json(method, `${url}?${qs}`, body));
        qs.set('format', 'markdown');
        printMarkdown(await client().text(method, `${url}?${qs}`, body));
      });
  }

  const uncle = program.command('uncle').description('uncle edges (a session that queued or interrupted another)');
  uncle
    .command('remove <junior> <uncle>')
    .description('remove the uncle edge <uncle> → <junior> recorded in error')
    .option('--acting-session <ref>', ACTING_HELP)
    .action(async (junior: string, uncleRef: string, opts: { actingSession?: string }) => {
      const qs = opts.actingSession ? `?acting_session_id=${encodeURIComponent(opts.actingSession)}` : '';
      await client().request('DELETE', `/api/v1/sessions/${refPath(junior)}/uncle_links/${refPath(uncleRef)}${qs}`);
      printText(`Removed the uncle edge ${uncleRef} → ${junior}.`);
    });

  const deliveries = program.command('deliveries').description('delivery into an agent: items its runner wrote that it never reported taking');
  deliveries
    .command('resend <item-id>')
    .description('resend an undelivered inbox item: it returns to pending and is written into the agent again')
    .option('--acting-session <ref>', ACTING_HELP)
    .option('--json', 'print JSON')
    .action(async (item: string, opts: { actingSession?: string; json?: boolean }) => {
      if (!/^[1-9][0-9]*$/.test(item)) throw new CliExit(EXIT_USAGE, 'error: <item-id> is an inbox item id (a positive integer).');
      const url = `/api/v1/inbox/${item}/resend`;
      const body = actingBody(opts);
      if (opts.json) return printJson(await client().json('POST', url, body));
      printMarkdown(await client().text('POST', `${url}?format=markdown`, body));
    });

  const inbox = program.command('inbox').description("a session's inbox");
  inbox
    .command('list <ref>')
    .description('what is waiting for the session (lists; changes nothing)')
    .option('--all', 'every state, delivered and withdrawn included')
    .option('--state <states>', 'comma-separated states (pending, leased, written, undelivered, delivered, withdrawn, expired, retired)')
    .option('--limit <n>', 'page size (≤ 200)')
    .option('--cursor <cursor>', 'the next page')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: { all?: boolean; state?: string; limit?: string; cursor?: string; json?: boolean }) => {
      const qs = new URLSearchParams();
      if (opts.all) qs.set('state', 'all');
      else if (opts.state) qs.set('state', opts.state);
      if (opts.limit) qs.set('limit', opts.limit);
      if (opts.cursor) qs.set('cursor', opts.cursor);
      const url = `/api/v1/sessions/${refPath(ref)}/inbox`;
      if (opts.json) return printJson(await client().json('GET', `${url}?${qs}`));
      qs.set('format', 'markdown');
      printMarkdown(await client().text('GET', `${url}?${qs}`));
    });
}
