import { z } from 'zod';
import { ActorFilter, RefValue as Ref } from '../../http/wire-rules.js';
import { createSession } from '../../app/sessions/index.js';
import { listSessions } from '../../app/sessions/index.js';
import { getSessionDetail } from '../../app/sessions/index.js';
import { archiveSession, changeLifecycle } from '../../app/sessions/index.js';
import { WarrantError } from '../../core/errors.js';
import { MAX_INBOX_CONTENT_BYTES } from '../../core/inbox-rules.js';
import { MAX_BODY_BYTES } from '../../http/app.js';
import { deliverNew } from '../../app/inbox/index.js';
import { removeUncleEdge } from '../../app/lineage/index.js';
import { serializeDelivery } from '../../render/inbox-json.js';
import { renderDelivery } from '../../render/inbox-markdown.js';
import { serializeCreateResult } from '../../render/record-json.js';
import { serializeSession } from '../../render/session-json.js';
import { serializeSessionDetail } from '../../render/session-detail-json.js';
import { renderSessionDetail } from '../../render/session-detail-markdown.js';
import { morePages, renderSessionLine, renderSessionList } from '../../render/session-markdown.js';
import { READ_HUMAN_MESSAGES_AS } from './human-caveats.js';
import { provenanceNotes } from '../../render/provenance.js';
import { defineTool, selfSessionId, type ToolDefinition } from '../tool.js';
import { HIERARCHY_CAVEATS } from './lineage-tools.js';

const SESSION_REF = 'the session: `42`, `#42`, a uid or a uid prefix';
const ACTING = 'fleet key only: the session you act for (declared)';

const startSession = defineTool({
  name: 'start_session',
  groups: ['sessions'],
  title: 'Start a session',
  description: () =>
    'Create a new agent session. With a session token the caller becomes its parent (authenticated); a fleet key may name `parent_session_id` and `acting_session_id` (both declared). An unresolvable parent never fails the create: `parent_resolution` says what happened. No tool here attaches a runtime or returns a token.',
  inputSchema: () =>
    z.object({
      title: z.string().max(200).optional().describe('a short title (derived from the prompt when absent)'),
      prompt: z.string().max(MAX_BODY_BYTES).optional().describe('the task the new session is given, stored with it (the whole request is at most 1 MiB)'),
      agent_root: z.string().max(64).optional().describe('the agent type, e.g. `reviewer`'),
      model: z.string().max(200).optional().describe('the model it runs on, as you name it'),
      parent_session_id: Ref.optional().describe('fleet key: the parent, a session ref (declared); one that resolves to no session is dropped, never an error'),
      acting_session_id: Ref.optional().describe(ACTING),
      custom_metadata: z.record(z.string(), z.unknown()).optional().describe('your own JSON object, kept with the session'),
    }),
  handler: async (ctx, caller, args) => {
    const result = await createSession(ctx, caller, {
      title: args.title ?? null,
      prompt: args.prompt ?? null,
      agentRoot: args.agent_root ?? null,
      model: args.model ?? null,
      parentHint: args.parent_session_id === undefined ? null : String(args.parent_session_id),
      actingSessionId: args.acting_session_id ?? null,
      ...(args.custom_metadata ? { customMetadata: args.custom_metadata } : {}),
    });
    const pr = result.parentResolution;
    const parentLine =
      pr.resolvedId !== null
        ? `parent: #${pr.resolvedId} (${pr.basis})${pr.dropped ? ` — hint ${JSON.stringify(pr.requested)} dropped: ${pr.dropped}` : ''}`
        : pr.requested !== null
          ? `parent: none — hint ${JSON.stringify(pr.requested)} dropped: ${pr.dropped}`
          : 'parent: none';
    return {
      text: `Created session #${result.session.id} (${result.session.status}).\n${parentLine}\n\n${renderSessionLine(result.session)}`,
      data: serializeCreateResult(result),
    };
  },
});

const listSessionsTool = defineTool({
  name: 'list_sessions',
  groups: ['sessions'],
  title: 'List sessions',
  description: () =>
    'List sessions you may see, newest first. Filters: status (comma-separated), parent (a session ref), q (title text), caused_by (what an actor caused). Pass next_cursor back as cursor for the next page; `notes` says when there is one.',
  inputSchema: () =>
    z.object({
      status: z.string().max(500).optional().describe('comma-separated statuses, e.g. `running,idle`'),
      parent: Ref.optional().describe('only the children of this session'),
      q: z.string().max(200).optional().describe('text the title contains'),
      caused_by: ActorFilter.optional().describe(
        'only sessions this actor caused (a roster key, `session:<id>`, `client:<name>`): directly, or through sessions it caused',
      ),
      limit: z.number().int().min(1).max(200).optional().describe('at most this many (default 50)'),
      cursor: z.string().max(200).optional().describe('the `next_cursor` of the previous page'),
    }),
  annotations: { readOnlyHint: true },
  handler: async (ctx, caller, args) => {
    const r = await listSessions(ctx, caller, {
      ...(args.status ? { status: args.status.split(',').map((s) => s.trim()) } : {}),
      ...(args.parent !== undefined ? { parent: String(args.parent) } : {}),
      ...(args.q ? { q: args.q } : {}),
      ...(args.caused_by !== undefined ? { causedBy: args.caused_by } : {}),
      ...(args.limit ? { limit: args.limit } : {}),
      ...(args.cursor ? { cursor: args.cursor } : {}),
    });
    const hint = (c: string) => `call list_sessions again with cursor "${c}"`;
    return {
      text: renderSessionList(r.sessions, r.nextCursor, hint),
      data: { sessions: r.sessions.map(serializeSession), next_cursor: r.nextCursor },
      notes: morePages(r.nextCursor, hint),
    };
  },
});

const getSessionTool = defineTool({
  name: 'get_session',
  groups: ['sessions', 'self_session'],
  title: 'Get a session',
  description: (group) =>
    [
      'How to read a hierarchy outline (every tool that draws one points here):',
      ...HIERARCHY_CAVEATS.map((c) => `- ${c}`),
      READ_HUMAN_MESSAGES_AS,
      group === 'self_session'
        ? 'Returns your own session: status, lineage and provenance, with `### Session Hierarchy` and `### Human Messages` always included (not behind a flag: the empty record is the most important reading).'
        : 'Returns a session by ref (`42`, `#42`, a uid or a uid prefix): status, lineage and provenance, with `### Session Hierarchy` and `### Human Messages` always included (not behind a flag: the empty record is the most important reading).',
      'The human messages are summarised, not shortened: the newest 5 here and the newest 5 elsewhere, each cut at 300 characters (with its real length), both counts of the whole record, and where the rest is (`get_session_provenance`, with a cursor). `verbose: true` returns the first page of the full rendering instead. The structured result holds the newest 25 uncut, led by `notes` (gaps, absence, truncation, where the older ones are).',
    ].join('\n'),
  inputSchema: (group) => {
    const verbose = z.boolean().optional().describe('true: the first page of the full record instead of the summary');
    return group === 'self_session' ? z.object({ verbose }) : z.object({ session_id: Ref.describe(SESSION_REF), verbose });
  },
  annotations: { readOnlyHint: true },
  handler: async (ctx, caller, args, group) => {
    const ref = group === 'self_session' ? String(selfSessionId(caller)) : String((args as unknown as { session_id: string | number }).session_id);
    const verbose = args.verbose === true;
    const detail = await getSessionDetail(ctx, caller, ref, { summary: !verbose });
    const id = detail.session.id;
    const hint = (c: string) =>
      group === 'self_session' ? `call get_session_provenance with cursor "${c}"` : `call get_session_provenance with session_id ${id} and cursor "${c}"`;
    return { text: renderSessionDetail(detail, { verbose, pagingHint: hint }), data: serializeSessionDetail(detail), notes: provenanceNotes(detail, hint) };
  },
});

const LIFECYCLE_ACTIONS = ['archive', 'unarchive', 'stop', 'resume'] as const;

/** Said once, here; `manage_enqueued_messages` points to it. */
const ACTING_AS_SESSION =
  "Words sent over MCP are never recorded as a human's message, whatever the token. When you act as a session (your session token, or a fleet key naming `acting_session_id`, declared), delivering to another session may record yours as its uncle (an uncle edge: your hierarchy joins its own); `uncle_edge` reports the outcome.";

const actionSession = defineTool({
  name: 'action_session',
  groups: ['sessions'],
  title: 'Act on a session',
  description: () =>
    [
      ACTING_AS_SESSION,
      'Act on a session (`session_id`): `follow_up` delivers `content` as its next user turn;',
      '`archive` (cascades down its spawn subtree, skipping active sessions), `unarchive`, `stop`, `resume`;',
      '`remove_uncle` removes the uncle edge `uncle_session_id` → `session_id` recorded in error (not with a session token).',
      'A session token changes the lifecycle only of itself and its descendants.',
    ].join(' '),
  inputSchema: () =>
    z.object({
      action: z.enum([...LIFECYCLE_ACTIONS, 'follow_up', 'remove_uncle']).describe('what to do; see the description'),
      session_id: Ref.describe(SESSION_REF),
      content: z
        .string()
        .max(MAX_INBOX_CONTENT_BYTES)
        .optional()
        .describe('follow_up: the text the session receives, at most 256 KiB of UTF-8 (`content-too-large`)'),
      uncle_session_id: Ref.optional().describe('remove_uncle: the senior end of the edge'),
      acting_session_id: Ref.optional().describe(ACTING),
    }),
  handler: async (ctx, caller, args) => {
    const ref = String(args.session_id);
    if (args.action === 'follow_up') {
      if (args.content === undefined) throw new WarrantError('invalid-request', 'content: required for follow_up.', { details: { field: 'content' } });
      const r = await deliverNew(ctx, caller, ref, 'follow_up', { content: args.content, actingSessionId: args.acting_session_id ?? null });
      return { text: renderDelivery(r), data: serializeDelivery(r) };
    }
    if (args.action === 'remove_uncle') {
      if (args.uncle_session_id === undefined)
        throw new WarrantError('invalid-request', 'uncle_session_id: required for remove_uncle.', { details: { field: 'uncle_session_id' } });
      const r = await removeUncleEdge(ctx, caller, ref, String(args.uncle_session_id), { actingSessionId: args.acting_session_id ?? null });
      return {
        text: `Removed the uncle edge #${r.removed.uncleSessionId} → #${r.removed.sessionId} (written ${r.removed.createdAt} by ${r.removed.source}, ${r.removed.basis}).`,
        data: {
          removed: {
            session_id: r.removed.sessionId,
            uncle_session_id: r.removed.uncleSessionId,
            source: r.removed.source,
            basis: r.removed.basis,
            created_at: r.removed.createdAt,
          },
        },
      };
    }
    if (args.action === 'archive') {
      const r = await archiveSession(ctx, caller, ref, args.acting_session_id ?? null);
      const skipped = r.skipped.map((s) => `#${s.id} (${s.reason})`).join(', ');
      return {
        text: `Archived: ${r.archived.length > 0 ? r.archived.map((id) => `#${id}`).join(', ') : 'nothing'}.${skipped ? ` Skipped: ${skipped}.` : ''}`,
        data: { archived: r.archived, skipped: r.skipped },
      };
    }
    if (!(LIFECYCLE_ACTIONS as readonly string[]).includes(args.action)) throw new WarrantError('invalid-request', `action: unknown action ${args.action}.`);
    const r = await changeLifecycle(ctx, caller, ref, args.action, args.acting_session_id ?? null);
    return {
      text: r.changed
        ? `Session #${r.session.id} is now ${r.session.status}.`
        : `No change: session #${r.session.id} is ${r.session.status} (nothing was recorded).`,
      data: { session: serializeSession(r.session), changed: r.changed },
    };
  },
});

export const SESSION_TOOLS: ToolDefinition[] = [startSession, listSessionsTool, getSessionTool, actionSession];
