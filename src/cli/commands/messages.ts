import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Command } from 'commander';
import { ApiClient, ApiError, clientOptionsFromEnv } from '../api-client.js';
import { CliExit, EXIT_FAILURE, printJson, printMarkdown } from '../output.js';
import { ProgressBar } from '../progress.js';
import { storeFlags, withStore, type StoreFlags } from '../store-access.js';

function client(): ApiClient {
  return new ApiClient(clientOptionsFromEnv(process.env));
}

async function textOf(words: string[]): Promise<string> {
  if (words.length === 1 && words[0] === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  return words.join(' ');
}

/** Numbers where the wire takes numbers; anything else is sent as typed, for the server to judge. */
const numeric = (v: string): number | string => (/^-?[0-9]{1,15}$/.test(v.trim()) ? Number(v.trim()) : v);

/**
 * `warrant message send|status`, `warrant messages export` (docs/messages.md, docs/api.md). A refused send
 * prints `reply_to=<id>: <token>` (`none` for a new message), then the sentence and the one
 * action the token asks for, and exits 1.
 */
export function registerMessageCommands(program: Command): void {
  const message = program.command('message').description('agent messages between sessions (send as a session: WARRANT_SESSION_TOKEN)');
  message
    .command('send <to> [text...]')
    .description('send a message to session <to> (or, with --reply-to, answer one you received); the text after `--`, or `-` for stdin')
    .option('--ref <ref>', 'your idempotency key: the same ref and text again returns the original receipt')
    .option('--reply-to <id>', 'answer this message (msg_…) or inbox item; <to> must be its sender')
    .option('--ttl <seconds>', "seconds until the deadline (1–86400; default 900, a reply: the original's remaining time)")
    .option('--acting-session <ref>', 'with the fleet key: the session you send for (declared; cannot reply)')
    .option('--json', 'print JSON')
    .action(async (to: string, words: string[], opts: { ref?: string; replyTo?: string; ttl?: string; actingSession?: string; json?: boolean }) => {
      const body: Record<string, unknown> = { to: numeric(to), payload: await textOf(words) };
      if (opts.ref !== undefined) body.ref = opts.ref;
      if (opts.replyTo !== undefined) body.reply_to = numeric(opts.replyTo);
      if (opts.ttl !== undefined) body.ttl = numeric(opts.ttl);
      if (opts.actingSession !== undefined) body.acting_session_id = opts.actingSession;
      try {
        if (opts.json) return printJson(await client().json('POST', '/api/v1/messages', body));
        printMarkdown(await client().text('POST', '/api/v1/messages?format=markdown', body));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const action = typeof error.body.action === 'string' ? `\naction: ${error.body.action}` : '';
        const previous = typeof error.body.previous_id === 'string' ? `\nprevious_id: ${error.body.previous_id}` : '';
        throw new CliExit(EXIT_FAILURE, `reply_to=${opts.replyTo ?? 'none'}: ${error.token}\n${error.message}${action}${previous}`);
      }
    });
  message
    .command('status <id>')
    .description("a message's status: accepted, delivered, expired or failed (its sender, its target, admins)")
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      const url = `/api/v1/messages/${encodeURIComponent(id)}`;
      if (opts.json) return printJson(await client().json('GET', url));
      printMarkdown(await client().text('GET', `${url}?format=markdown`));
    });

  const messages = program.command('messages').description('the message history (admin: opens the store directly)');
  storeFlags(
    messages
      .command('export')
      .description('write the message history as JSON Lines (schema_version 1; no payloads; readers ignore unknown keys and read absent keys as zero values)')
      .option('--out <file>', 'write to a file instead of stdout'),
  ).action(async (opts: StoreFlags & { out?: string }) => {
    const { authorize } = await import('../../app/kernel.js');
    const { exportHistoryLines } = await import('../../app/messages/index.js');
    await withStore(
      opts,
      async (ctx, admin) => {
        await authorize(ctx.store.kysely, ctx, admin, 'admin', null);
        const out = opts.out ? createWriteStream(opts.out, { encoding: 'utf8' }) : process.stdout;
        if (!opts.out) process.stdout.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? process.exit(0) : undefined));
        const bar = new ProgressBar('exporting', process.stderr, process.stderr.isTTY === true && (opts.out !== undefined || process.stdout.isTTY !== true));
        let last = { done: 0, total: 0 };
        for await (const line of exportHistoryLines(ctx.store.kysely, {
          onProgress: (done, total) => {
            last = { done, total };
            bar.update(done, total);
          },
        })) {
          if (!out.write(line + '\n')) await once(out, 'drain');
        }
        bar.finish(last.done, last.total);
        if (opts.out)
          await new Promise<void>((resolve, reject) =>
            (out as ReturnType<typeof createWriteStream>).end((error?: Error | null) => (error ? reject(error) : resolve())),
          );
      },
      { mustExist: true },
    );
  });
}
