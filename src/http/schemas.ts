import { z } from '@hono/zod-openapi';
import { SESSION_STATUSES } from '../core/lifecycle.js';
import { GENESES } from '../core/genesis.js';
import { MAX_CONVERSATION_ID_LENGTH, MAX_PROVIDER_LENGTH, MAX_TRANSCRIPT_PATH_LENGTH } from '../core/conversations.js';
import { CausedByFilter } from './footprint-schemas.js';
import { ActorFilter, Cursor, IsoTime, Limit, orNull, RefValue, ReportedText, commaList } from './wire-rules.js';

/**
 * The wire schemas: one zod schema validates a request, types the handler and generates the
 * OpenAPI document. Unknown keys are ignored on create and rejected on PATCH (docs/api.md).
 */
const Ref = RefValue;
/**
 * docs/concepts.md: a parent hint of any length or shape is accepted here and
 * resolved (or dropped with its reason token) by the parent resolution, never refused with 400.
 */
const ParentHint = z.union([z.string().max(10_000), z.number()]);

export const RefParam = z.object({
  ref: z
    .string()
    .min(1)
    .max(200)
    .openapi({
      param: { name: 'ref', in: 'path' },
      example: '42',
      description: 'a session ref: `42`, `#42`, a uid, `uid:<prefix>` or a uid prefix of 8+ hex characters with a letter',
    }),
});

export const ActorSchema = z
  .object({
    kind: z.enum(['human', 'session', 'system', 'client', 'fleet']),
    ref: z.string().nullable(),
    display_name: z.string().nullable(),
  })
  .openapi('Actor', {
    description:
      'who acted; in multi-user mode a session the reader may not see is `{kind: "session", ref: null, display_name: null}` — "a session you cannot see"',
  });

const Basis = z.enum(['authenticated', 'delegated', 'declared', 'legacy', 'corrected']);

export const SessionSchema = z
  .object({
    id: z.number().int(),
    uid: z.string(),
    title: z.string().nullable(),
    slug: z.string().nullable(),
    status: z.enum(SESSION_STATUSES),
    owner: z.string().nullable(),
    agent_root: z.string().nullable(),
    genesis: z.enum(GENESES),
    scheduling_class: z.enum(['priority', 'spot']),
    parent_session_id: z.number().int().nullable(),
    parent_basis: Basis.nullable(),
    lineage_parent_id: z.number().int().nullable(),
    creator: orNull(ActorSchema),
    creator_basis: Basis.nullable(),
    cause: orNull(ActorSchema),
    cause_basis: Basis.nullable(),
    model: z.string().nullable(),
    starred: z.boolean(),
    messaging: z.enum(['full', 'reply-only']),
    custom_metadata: z.record(z.string(), z.unknown()).optional(),
    provider: z.string().nullable(),
    provider_conversation: z.string().nullable(),
    runtime_parent_id: z.number().int().nullable().openapi({
      description:
        "the session whose runtime created this one for a subagent or nested agent; its token reports this session's runtime, conversation and transcript",
    }),
    runtime_origin: z.enum(['subagent', 'nested-agent']).nullable(),
    activation: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Session');

export const ErrorSchema = z
  .object({ error: z.string().openapi({ example: 'session-not-found' }), message: z.string() })
  .catchall(z.unknown())
  .openapi('Error');

/** What the attaching runner says about itself (`warrant run` sends it). */
const RunnerFactsSchema = z
  .object({
    tty: z.boolean().openapi({
      description:
        "standard input of the runner was a terminal: a person may type to the agent there. Such a run makes the hierarchy's agent terminal a capture channel, and — since what is typed there is not witnessed yet — a capture gap (the gate then says `cannot-say`, never `none`). Kept per activation: a later attach without a TTY does not remove it. Absent or false: not a candidate (a machine started the run).",
    }),
  })
  .openapi('RunnerFacts', { description: 'what the runner that attaches says about itself; omit it when unknown (then it is not a terminal candidate)' });

export const CreateSessionBody = z
  .object({
    title: z.string().max(200).nullish(),
    prompt: z.string().nullish(),
    original_prompt: z.string().nullish(),
    agent_root: z.string().max(64).nullish(),
    model: z.string().max(200).nullish(),
    starred: z.boolean().optional(),
    messaging: z.enum(['full', 'reply-only']).optional(),
    provider: z.string().max(64).nullish(),
    provider_conversation: z.string().max(500).nullish(),
    custom_metadata: z.record(z.string(), z.unknown()).optional(),
    parent_session_id: ParentHint.nullish(),
    parentSessionId: ParentHint.nullish().openapi({ description: 'alias of parent_session_id' }),
    acting_session_id: Ref.nullish(),
    owner: z.string().max(64).nullish().openapi({
      description:
        "the owner's roster key: fleet and integration keys only (a human owns what they create, a spawned session its parent's owner; `400` otherwise)",
    }),
    genesis: z.enum(['schedule', 'github', 'api']).nullish(),
    scheduling_class: z.enum(['priority', 'spot']).nullish(),
    attach: z.boolean().optional(),
    runner: RunnerFactsSchema.optional().openapi({ description: 'with `attach: true` only: what the attaching runner says about itself (see RunnerFacts)' }),
    delivery: z.enum(['runner']).optional().openapi({
      description:
        'with `attach: true`: the runner writes inbox items into its agent and reports them written; MCP `read_inbox` then lists without leasing for this activation',
    }),
  })
  .openapi('CreateSession');

export const AttachBody = z
  .object({
    runner: RunnerFactsSchema.optional().openapi({ description: 'what the attaching runner says about itself (see RunnerFacts)' }),
    delivery: z.enum(['runner']).optional().openapi({
      description: 'the runner writes inbox items into its agent and reports them written; MCP `read_inbox` then lists without leasing for this activation',
    }),
  })
  .openapi('AttachSession');

const ResolutionSchema = z.object({
  requested: z.string().nullable(),
  resolved_id: z.number().int().nullable(),
  basis: Basis.nullable(),
  dropped: z.string().nullable().openapi({
    description:
      'why the hint was not used: `not-found` (also for a session the caller may not see), `ambiguous-prefix`, `prefix-too-short`, `hint-too-long`, `owner-mismatch`, `caller-disagrees`',
  }),
});

export const CreateSessionResponse = z
  .object({
    session: SessionSchema,
    parent_resolution: ResolutionSchema.extend({ source: z.string().nullable() }),
    creator_resolution: ResolutionSchema,
    session_token: z.string().optional(),
    session_token_superseded: z.boolean().optional(),
  })
  .openapi('CreateSessionResponse');

export const PatchSessionBody = z
  .strictObject({
    title: z.string().min(1).max(200).optional(),
    starred: z.boolean().optional(),
    model: z.string().max(200).nullable().optional(),
    messaging: z.enum(['full', 'reply-only']).optional(),
    parent_session_id: Ref.nullable().optional(),
    acting_session_id: Ref.nullish(),
  })
  .openapi('PatchSession');

export const ActingBody = z.object({ acting_session_id: Ref.nullish() }).openapi('ActingSession');

/** `exited` carries its exit code, `error` may carry a reason (other keys are ignored, as on every report). */
export const RuntimeBody = z
  .discriminatedUnion('state', [
    z.object({ state: z.enum(['started', 'idle']) }),
    z.object({
      state: z.literal('exited'),
      code: z.number().int().min(-255).max(255).openapi({ description: "the process's exit code (a signal as its negative number)" }),
    }),
    z.object({ state: z.literal('error'), reason: z.string().max(2000).nullish() }),
  ])
  .openapi('RuntimeReport');

const transcriptChunk = {
  provider: ReportedText(MAX_PROVIDER_LENGTH).openapi({ example: 'claude-code' }),
  conversation_id: ReportedText(MAX_CONVERSATION_ID_LENGTH).openapi({
    description: "the provider's conversation (Claude Code's session_id or a subagent's agent_id)",
  }),
  lines: z.array(z.string().regex(/^[^\n\u0000]*$/, 'one line without its newline, without NUL characters')).openapi({
    description:
      "each line of the file exactly as written, without its trailing newline; at most 1 MiB of the file (the lines' UTF-8 bytes plus one newline each) and 16,384 lines a request",
  }),
};

/** An append continues the file at the server's next offset, or (`restarted: true`) starts it over from 0. */
export const TranscriptBody = z
  .discriminatedUnion('restarted', [
    z.strictObject({
      ...transcriptChunk,
      offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({
        description: "byte offset in the provider's file of `lines[0]`; must equal the server's next offset for this conversation (0 for the first append)",
      }),
      restarted: z.literal(false).optional(),
    }),
    z.strictObject({
      ...transcriptChunk,
      offset: z.literal(0, { error: 'a restarted file is appended from offset 0' }),
      restarted: z.literal(true).openapi({ description: 'the file was truncated or rotated: append from offset 0 again (the first record says so)' }),
    }),
  ])
  .openapi('TranscriptAppend');

export const TranscriptAppendResponse = z
  .object({
    appended: z.number().int().openapi({ description: 'lines stored' }),
    next_offset: z.number().int().openapi({ description: 'where the next append starts' }),
  })
  .openapi('TranscriptAppended');

export const TranscriptPositionQuery = z.object({ provider: ReportedText(MAX_PROVIDER_LENGTH), conversation_id: ReportedText(MAX_CONVERSATION_ID_LENGTH) });

export const TranscriptPositionResponse = z
  .object({
    session_id: z.number().int(),
    provider: z.string(),
    conversation_id: z.string(),
    next_offset: z.number().int().openapi({ description: 'the byte offset the next append must name; 0 when nothing was appended for this conversation' }),
    transcripts: z.enum(['on', 'off']).openapi({ description: 'the `transcripts` setting: off refuses appends' }),
  })
  .openapi('TranscriptPosition');

export const TranscriptRecordSchema = z
  .object({
    id: z.number().int(),
    provider: z.string().nullable(),
    conversation_id: z.string().nullable(),
    offset: z.number().int().nullable().openapi({ description: "the line's byte offset in the provider's file (null for records appended before offsets)" }),
    restarted: z.boolean().openapi({ description: 'the file restarted from 0 at this record (truncated or rotated)' }),
    line: z.string().openapi({ description: 'the line exactly as written' }),
    record: z.unknown().openapi({ description: 'the line parsed as JSON, or null when it is not JSON' }),
    created_at: z.string(),
  })
  .openapi('TranscriptRecord');

export const RuntimeChildBody = z
  .strictObject({
    origin: z.enum(['subagent', 'nested-agent']).openapi({
      description:
        "`subagent`: the agent's built-in subagent (Claude Code's Agent tool, Codex's spawn_agent); `nested-agent`: another agent started inside this one's runtime",
    }),
    provider: ReportedText(MAX_PROVIDER_LENGTH).openapi({ example: 'claude-code' }),
    conversation_id: ReportedText(MAX_CONVERSATION_ID_LENGTH).openapi({
      description: "the child's conversation: a subagent's `agent_id`, a nested agent's `session_id`",
    }),
    agent_root: ReportedText(64).nullish().openapi({ description: "the subagent's type (Claude Code's `agent_type`)" }),
    transcript_path: ReportedText(MAX_TRANSCRIPT_PATH_LENGTH).nullish().openapi({ description: "the child's transcript file, stored as given (never opened)" }),
  })
  .openapi('RuntimeChild');

export const ListSessionsQuery = z.object({
  status: commaList(SESSION_STATUSES, 'statuses').optional(),
  owner: z.string().optional(),
  parent: z.string().optional(),
  root: z.enum(['true', 'false']).optional(),
  q: z.string().max(200).optional(),
  caused_by: CausedByFilter.optional(),
  limit: Limit.optional(),
  cursor: Cursor.optional(),
});

export const PageQuery = z.object({
  limit: Limit.optional(),
  cursor: Cursor.optional(),
});

export const EventsQuery = PageQuery.extend({ type: z.string().optional().openapi({ description: 'comma-separated event types' }) });

export const DeletionsQuery = PageQuery.extend({
  actor: ActorFilter.optional().openapi({ description: 'a roster key (or `human:<key>`), `session:<id>`, `client:<name>`, `fleet` or `system`' }),
  since: IsoTime.optional().openapi({ description: 'an ISO 8601 date-time with its offset, or a date' }),
  until: IsoTime.optional().openapi({ description: 'an ISO 8601 date-time with its offset, or a date' }),
  session_uid: z.string().max(40).optional(),
});

export const EventSchema = z
  .object({
    id: z.number().int(),
    session_id: z.number().int(),
    seq: z.number().int(),
    type: z.string(),
    details: z.record(z.string(), z.unknown()),
    actor: orNull(ActorSchema.extend({ basis: z.string().nullable() })),
    cause: orNull(ActorSchema.extend({ basis: z.string().nullable() })),
    credential_id: z.number().int().nullable(),
    created_at: z.string(),
  })
  .openapi('SessionEvent');

export const FormatQuery = z.object({ format: z.enum(['json', 'markdown']).optional() });

const HierarchyNodeSchema = z
  .object({
    id: z.number().int(),
    uid: z.string(),
    title: z.string().nullable(),
    status: z.enum(SESSION_STATUSES),
    owner: z.string().nullable(),
    agent_root: z.string().nullable(),
    genesis: z.enum(GENESES),
    scheduling_class: z.enum(['priority', 'spot']),
    depth: z.number().int(),
    render_parent_id: z.number().int().nullable().openapi({ description: 'the session this node is drawn under' }),
    spawn_edge: z.boolean().openapi({ description: 'true only when render_parent_id is its lineage (spawn) parent' }),
    placement: z.enum(['root', 'spawn', 'uncle', 'ceiling']),
    also_senior: z
      .array(z.object({ id: z.number().int(), basis: z.enum(['authenticated', 'declared']) }))
      .openapi({ description: 'its uncles that are rendered nodes, with the edge basis' }),
    hidden_seniors: z.number().int().openapi({ description: 'its uncles that are not rendered here' }),
    is_current: z.boolean(),
    drawn_under: z
      .object({
        reason: z.enum(['uncle', 'ceiling']),
        uncle_id: z.number().int().nullable(),
        spawn_parent: z.enum(['in-tree', 'outside', 'none']).nullable(),
        spawn_parent_id: z.number().int().nullable(),
        text: z.string(),
      })
      .nullable()
      .openapi({ description: 'why the node is not drawn under its spawn parent, when it is not' }),
  })
  .openapi('HierarchyNode');

export const HierarchySchema = z
  .object({
    origin_id: z.number().int().openapi({ description: 'the highest spawn ancestor reached (uncle edges ignored)' }),
    roots: z.array(z.number().int()).openapi({ description: 'the roots shown, origin first when it is one' }),
    truncated: z.boolean(),
    note: z.string().nullable(),
    nodes: z.array(HierarchyNodeSchema).openapi({ description: 'in output order: each node right after the node it hangs from' }),
  })
  .openapi('SessionHierarchy');

const CaptureGapSchema = z
  .object({
    channel: z.string(),
    kind: z.enum(['not-instrumented', 'instrumented-late', 'unknown-origin', 'deleted-session', 'terminal-unwitnessed']),
    session_ids: z.array(z.number().int()),
    since: z.string().optional(),
    deleted_session_id: z.number().int().optional(),
    human_messages: z.number().int().optional(),
    started_at: z
      .string()
      .optional()
      .openapi({ description: 'terminal-unwitnessed (channel `terminal`): when the first run of the session with a TTY attached' }),
    activations: z
      .array(z.number().int())
      .optional()
      .openapi({ description: 'terminal-unwitnessed: the activations whose runner had a TTY and whose typed turns were not witnessed' }),
    match_pending: z
      .literal(true)
      .optional()
      .openapi({ description: 'terminal-unwitnessed: every unmatched turn or report is under 5 s old and may still be matched; the gap stands until it is' }),
    unmatched_at: z.string().optional().openapi({
      description:
        'terminal-unwitnessed: when the earliest relayed turn or reported prompt of those runs was made that nothing matched (absent when the gap is the run itself: no witness, or no closing report)',
    }),
    message: z.string(),
  })
  .openapi('CaptureGap');

export const HumanMessageSchema = z
  .object({
    id: z.number().int(),
    session_id: z.number().int(),
    scope: z.enum(['here', 'elsewhere']),
    author: z.object({ key: z.string().nullable(), display_name: z.string().nullable(), captured_key: z.string() }),
    channel: z.string(),
    entry_point: z.string(),
    content: z.string(),
    slack_permalink: z.string().nullable(),
    inbox_item_id: z.number().int().nullable(),
    created_at: z.string(),
    withdrawn_at: z.string().nullable(),
    witness_isolation: z.enum(['same-uid', 'other-uid']).nullable().openapi({
      description:
        'a witnessed terminal prompt (`cli.terminal_prompt`): `other-uid` when the agent ran as another OS user than the runner that witnessed it, `same-uid` when as the same one (it could then read what that user can); null for every other record',
    }),
  })
  .openapi('HumanMessage');

const HumanRecordSchema = z
  .object({
    counts: z.object({ here: z.number().int(), elsewhere: z.number().int(), is_floor: z.boolean() }),
    truncated: z.boolean(),
    capture_gaps: z.array(CaptureGapSchema),
    entries: z.array(HumanMessageSchema),
    next_cursor: z.string().nullable(),
    people: z.array(z.object({ key: z.string().nullable(), display_name: z.string(), notes: z.string() })),
  })
  .openapi('HumanMessageRecord');

export const ProvenanceSchema = z
  .object({ session_id: z.number().int(), session_uid: z.string(), session_hierarchy: HierarchySchema, human_messages: HumanRecordSchema })
  .openapi('Provenance');

export const WarrantSchema = z
  .object({
    session_id: z.number().int(),
    answer: z.enum(['here', 'elsewhere', 'none', 'cannot-say']),
    evidence: z.array(z.number().int()),
    witnessed_evidence: z
      .array(z.object({ human_message_id: z.number().int(), witness_isolation: z.enum(['same-uid', 'other-uid']) }))
      .optional()
      .openapi({
        description: 'present when some evidence is a prompt witnessed at the agent terminal (`cli.terminal_prompt`): which, and its witness_isolation',
      }),
    gaps: z.array(CaptureGapSchema),
    truncated: z.boolean(),
    counts: z.object({ here: z.number().int(), elsewhere: z.number().int() }),
  })
  .openapi('Warrant');
