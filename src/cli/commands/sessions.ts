import type { Command } from 'commander';
import { ApiClient, clientOptionsFromEnv, refPath } from '../api-client.js';
import { createInterface } from 'node:readline/promises';
import { CliExit, EXIT_FAILURE, EXIT_USAGE, printJson, printMarkdown, printText } from '../output.js';

/** Asks on the terminal before a deletion; without a terminal to ask on, `--yes` is required. */
async function confirmDeletion(ref: string): Promise<void> {
  if (!process.stdin.isTTY)
    throw new CliExit(
      EXIT_USAGE,
      `error: confirmation-required: deleting session ${ref} cannot be undone; pass --yes to delete without a terminal to confirm on.`,
    );
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`Delete session ${ref}? Its events and human messages go; a deletion record stays. [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliExit(EXIT_FAILURE, 'Not deleted.');
  } finally {
    rl.close();
  }
}

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
    .option('--caused-by <actor>', 'only what this actor caused (a roster key, session:<id>, client:<name>), directly or through sessions it caused')
    .option('--limit <n>', 'page size (≤ 200)')
    .option('--cursor <cursor>', 'the next page')
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        status?: string;
        owner?: string;
        parent?: string;
        roots?: boolean;
        query?: string;
        causedBy?: string;
        limit?: string;
        cursor?: string;
        json?: boolean;
      }) => {
        const qs = new URLSearchParams();
        if (opts.status) qs.set('status', opts.status);
        if (opts.owner !== undefined) qs.set('owner', opts.owner);
        if (opts.parent) qs.set('parent', opts.parent);
        if (opts.roots) qs.set('root', 'true');
        if (opts.query) qs.set('q', opts.query);
        if (opts.causedBy) qs.set('caused_by', opts.causedBy);
        if (opts.limit) qs.set('limit', opts.limit);
        if (opts.cursor) qs.set('cursor', opts.cursor);
        if (opts.json) return printJson(await client().json('GET', `/api/v1/sessions?${qs}`));
        qs.set('format', 'markdown');
        printMarkdown(await client().text('GET', `/api/v1/sessions?${qs}`));
      },
    );

  sessions
    .command('create')
    .description('create a session; with a session token it becomes the child of that session')
    .option('--title <title>', 'its title (else derived from the prompt)')
    .option('--prompt <text>', 'the prompt it starts with')
    .option('--parent <ref>', 'the parent (a hint, declared; never fails the create — the output says what happened)')
    .option('--agent-root <kind>', 'the kind of agent (router, worker, …)')
    .option('--attach', 'attach now: prints the new session token')
    .option('--json', 'print JSON (the REST payload)')
    .action(async (opts: { title?: string; prompt?: string; parent?: string; agentRoot?: string; attach?: boolean; json?: boolean }) => {
      const body: Record<string, unknown> = {};
      if (opts.title !== undefined) body.title = opts.title;
      if (opts.prompt !== undefined) body.prompt = opts.prompt;
      if (opts.parent !== undefined) body.parent_session_id = opts.parent;
      if (opts.agentRoot !== undefined) body.agent_root = opts.agentRoot;
      if (opts.attach) body.attach = true;
      const r = await client().json<{
        session: { id: number; status: string; title: string | null };
        parent_resolution: { requested: string | null; resolved_id: number | null; basis: string | null; dropped: string | null };
        session_token?: string;
      }>('POST', '/api/v1/sessions', body);
      if (opts.json) return printJson(r);
      const pr = r.parent_resolution;
      const parent =
        pr.resolved_id !== null
          ? `parent: #${pr.resolved_id} (${pr.basis})${pr.dropped ? ` — hint ${JSON.stringify(pr.requested)} dropped: ${pr.dropped}` : ''}`
          : pr.requested !== null
            ? `parent: none — hint ${JSON.stringify(pr.requested)} dropped: ${pr.dropped}`
            : 'parent: none';
      const lines = [`Created session #${r.session.id} (${r.session.status}) ${r.session.title ?? '(untitled)'}`, parent];
      if (r.session_token) lines.push(`session token (shown once): ${r.session_token}`);
      printText(lines.join('\n'));
    });

  sessions
    .command('set-parent <ref> <parent>')
    .description('correct a wrong parent record (humans and admins): a session ref, or "none" to clear it')
    .option('--json', 'print JSON')
    .action(async (ref: string, parent: string, opts: { json?: boolean }) => {
      const value = parent === 'none' ? null : parent;
      const r = await client().json<{ session: { id: number; lineage_parent_id: number | null; parent_basis: string | null }; changed: string[] }>(
        'PATCH',
        `/api/v1/sessions/${refPath(ref)}`,
        {
          parent_session_id: value,
        },
      );
      if (opts.json) return printJson(r);
      const now = r.session.lineage_parent_id !== null ? `#${r.session.lineage_parent_id} (${r.session.parent_basis})` : 'none';
      printText(
        r.changed.includes('parent_changed')
          ? `Session #${r.session.id}'s parent is now ${now}.`
          : `No change: session #${r.session.id}'s parent is already ${now}.`,
      );
    });

  sessions
    .command('show <ref>')
    .description('a session: status, lineage and provenance')
    .option('--json', 'print JSON (the REST payload)')
    .action(async (ref: string, opts: { json?: boolean }) => {
      if (opts.json) return printJson(await client().json('GET', `/api/v1/sessions/${refPath(ref)}`));
      printMarkdown(await client().text('GET', `/api/v1/sessions/${refPath(ref)}?format=markdown`));
    });

  sessions
    .command('tree <ref>')
    .description("a session's hierarchy as an outline (indentation is the spawn edge unless the line says otherwise)")
    .option('--json', 'print JSON (the session_hierarchy shape)')
    .action(async (ref: string, opts: { json?: boolean }) => {
      if (opts.json) return printJson(await client().json('GET', `/api/v1/sessions/${refPath(ref)}/hierarchy`));
      printMarkdown(await client().text('GET', `/api/v1/sessions/${refPath(ref)}/hierarchy?format=markdown`));
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
      if (opts.json) return printJson(await client().json('GET', `/api/v1/sessions/${refPath(ref)}/events?${qs}`));
      qs.set('format', 'markdown');
      printMarkdown(await client().text('GET', `/api/v1/sessions/${refPath(ref)}/events?${qs}`));
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
    .description('delete a session (writes a deletion record; humans and admins only); asks first unless --yes')
    .option('-y, --yes', 'delete without asking (required when stdin is not a terminal)')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: { yes?: boolean; json?: boolean }) => {
      if (!opts.yes) await confirmDeletion(ref);
      const r = await client().json<{ deletion: { session_id: number; affected: unknown[] } }>('DELETE', `/api/v1/sessions/${refPath(ref)}`);
      if (opts.json) return printJson(r);
      printText(`Deleted session #${r.deletion.session_id}; the deletion record lists ${r.deletion.affected.length} affected item(s).`);
    });
}
