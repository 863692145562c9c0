import type { Command } from 'commander';
import { ApiClient, clientOptionsFromEnv, refPath } from '../api-client.js';
import { printJson, printText } from '../output.js';

function client(): ApiClient {
  return new ApiClient(clientOptionsFromEnv(process.env));
}

/** `warrant sessions …` and the lifecycle verbs: they talk to a server. */
export function registerSessionCommands(program: Command): void {
  const sessions = program.command('sessions').description('read sessions');

  sessions
    .command('list')
    .description('list sessions, newest first')
    .option('--status <list>', 'comma-separated statuses')
    .option('--owner <key>', 'owner roster key (or "none")')
    .option('--parent <ref>', 'children of this session')
    .option('--roots', 'only sessions without a parent')
    .option('-q, --query <text>', 'title contains')
    .option('--limit <n>', 'page size (≤ 200)')
    .option('--cursor <cursor>', 'the next page')
    .option('--json', 'print JSON')
    .action(async (opts: { status?: string; owner?: string; parent?: string; roots?: boolean; query?: string; limit?: string; cursor?: string; json?: boolean }) => {
      const qs = new URLSearchParams();
      if (opts.status) qs.set('status', opts.status);
      if (opts.owner !== undefined) qs.set('owner', opts.owner);
      if (opts.parent) qs.set('parent', opts.parent);
      if (opts.roots) qs.set('root', 'true');
      if (opts.query) qs.set('q', opts.query);
      if (opts.limit) qs.set('limit', opts.limit);
      if (opts.cursor) qs.set('cursor', opts.cursor);
      if (opts.json) return printJson(await client().json('GET', `/api/v1/sessions?${qs}`));
      qs.set('format', 'markdown');
      printText(await client().text('GET', `/api/v1/sessions?${qs}`));
    });

  sessions
    .command('show <ref>')
    .description('a session: status, lineage and provenance')
    .option('--json', 'print JSON (the REST payload)')
    .action(async (ref: string, opts: { json?: boolean }) => {
      if (opts.json) return printJson(await client().json('GET', `/api/v1/sessions/${refPath(ref)}`));
      printText(await client().text('GET', `/api/v1/sessions/${refPath(ref)}?format=markdown`));
    });

  sessions
    .command('tree <ref>')
    .description("a session's hierarchy as an outline (indentation is the spawn edge unless the line says otherwise)")
    .option('--json', 'print JSON (the session_hierarchy shape)')
    .action(async (ref: string, opts: { json?: boolean }) => {
      if (opts.json) return printJson(await client().json('GET', `/api/v1/sessions/${refPath(ref)}/hierarchy`));
      printText(await client().text('GET', `/api/v1/sessions/${refPath(ref)}/hierarchy?format=markdown`));
    });

  sessions
    .command('events <ref>')
    .description("a session's attributed timeline")
    .option('--limit <n>', 'page size (≤ 200)')
    .option('--cursor <cursor>', 'the next page')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: { limit?: string; cursor?: string; json?: boolean }) => {
      const qs = new URLSearchParams();
      if (opts.limit) qs.set('limit', opts.limit);
      if (opts.cursor) qs.set('cursor', opts.cursor);
      const body = await client().json<{ events: { seq: number; type: string; created_at: string; actor: { kind: string; ref: string | null; basis: string } | null }[]; next_cursor: string | null }>('GET', `/api/v1/sessions/${refPath(ref)}/events?${qs}`);
      if (opts.json) return printJson(body);
      printText(
        body.events
          .map((e) => `${e.seq}\t${e.created_at}\t${e.type}\t${e.actor ? `${e.actor.kind}${e.actor.ref ? ':' + e.actor.ref : ''} (${e.actor.basis})` : 'unattributed'}`)
          .join('\n') + (body.next_cursor ? `\n\nMore: --cursor ${body.next_cursor}` : ''),
      );
    });

  for (const act of ['archive', 'unarchive', 'resume', 'stop'] as const) {
    program
      .command(`${act} <ref>`)
      .description(`${act} a session${act === 'archive' ? ' (and, bottom-up, its spawn subtree)' : ''}`)
      .option('--acting-session <ref>', 'with the fleet key: the session you act for (declared)')
      .option('--json', 'print JSON')
      .action(async (ref: string, opts: { actingSession?: string; json?: boolean }) => {
        const body = opts.actingSession ? { acting_session_id: opts.actingSession } : {};
        const r = await client().json<Record<string, unknown>>('POST', `/api/v1/sessions/${refPath(ref)}/${act}`, body);
        if (opts.json) return printJson(r);
        if (act === 'archive') {
          const archived = (r.archived as number[]).map((id) => `#${id}`).join(', ') || 'nothing';
          const skipped = (r.skipped as { id: number; reason: string }[]).map((s) => `#${s.id} (${s.reason})`).join(', ');
          return printText(`Archived: ${archived}.${skipped ? ` Skipped: ${skipped}.` : ''}`);
        }
        const s = r.session as { id: number; status: string };
        printText(r.changed ? `Session #${s.id} is now ${s.status}.` : `No change: session #${s.id} is ${s.status}.`);
      });
  }

  program
    .command('delete <ref>')
    .description('delete a session (writes a deletion record; humans and admins only)')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: { json?: boolean }) => {
      const r = await client().json<{ deletion: { session_id: number; affected: unknown[] } }>('DELETE', `/api/v1/sessions/${refPath(ref)}`);
      if (opts.json) return printJson(r);
      printText(`Deleted session #${r.deletion.session_id}; the deletion record lists ${r.deletion.affected.length} affected item(s).`);
    });
}
