import { z } from '@hono/zod-openapi';
import { ACK_REJECTIONS, INBOX_KINDS, INBOX_MODES, INBOX_STATES, MAX_LEASE_BATCH, WRITE_REJECTIONS } from '../core/inbox-rules.js';
import { MAX_PROMPT_LENGTH } from '../core/prompt-match.js';
import { UNCLE_RULE_OUTCOMES, UNCLE_SOURCES } from '../core/uncle-edge-rules.js';
import { ActorSchema } from './schemas.js';
import { commaList, Cursor, Limit, NonBlankText, orNull, RefValue } from './wire-rules.js';

/** Wire schemas of the inbox, the paths into it and uncle edges (docs/concepts.md, docs/messages.md, docs/api.md). */
const Ref = RefValue;
const RefPathParam = (name: string, description: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name, in: 'path' }, example: '42', description });

export const MessageIdParam = z.object({
  ref: RefPathParam('ref', 'a session ref'),
  mid: z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ param: { name: 'mid', in: 'path' }, example: 7, description: 'the enqueued message (inbox item) id' }),
});

export const UncleLinkParams = z.object({
  junior: RefPathParam('junior', 'the junior session (the one the uncle queued or interrupted)'),
  uncle: RefPathParam('uncle', 'the uncle (senior) session'),
});

const Attributed = orNull(ActorSchema.extend({ basis: z.string().nullable() }));

export const InboxItemSchema = z
  .object({
    id: z.number().int(),
    session_id: z.number().int(),
    kind: z.enum(INBOX_KINDS),
    mode: z.enum(INBOX_MODES),
    state: z.enum(INBOX_STATES).openapi({
      description:
        "effective state: a lapsed lease reads as pending; `written`: the runner wrote it into the agent and awaits the agent's prompt report; `undelivered`: no report matched within the lease (only a resend makes it pending again); `retired`: a stop item whose runtime ended",
    }),
    content: z.string(),
    details: z.record(z.string(), z.unknown()),
    sender: Attributed,
    sender_session_id: z.number().int().nullable(),
    cause: Attributed,
    lease_expires_at: z.string().nullable(),
    leased_at: z.string().nullable(),
    lease_count: z.number().int(),
    delivered_at: z.string().nullable(),
    withdrawn_at: z.string().nullable(),
    expires_at: z.string().nullable().openapi({ description: 'agent messages: the deadline; undelivered by then, the item expires' }),
    written_at: z.string().nullable().openapi({ description: 'when the runner wrote the item into its agent (state `written`)' }),
    written_deadline: z.string().nullable().openapi({
      description: "until when the agent's prompt report is awaited; past it a written item reads `undelivered` (a later matching report still delivers it)",
    }),
    retired_at: z.string().nullable().openapi({ description: 'a stop control item retired because the runtime it was for ended' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('InboxItem');

export const LeasedItemSchema = InboxItemSchema.extend({
  redelivery: z.boolean().openapi({ description: 'an earlier lease of this item lapsed unacknowledged' }),
  frame: z.object({
    format: z.enum(['text', 'warrant-message', 'control']),
    text: z.string().openapi({ description: 'what the runtime hands its model (text), or the JSON frame' }),
  }),
}).openapi('LeasedInboxItem');

const UncleEdgeOutcomeSchema = z
  .object({
    outcome: z.enum([...UNCLE_RULE_OUTCOMES, 'no-acting-session', 'unresolved-acting-session', 'record-failed']),
    acting_session_id: z.number().int().nullable(),
    session_id: z.number().int(),
    basis: z.enum(['authenticated', 'declared']).nullable(),
    source: z.enum(UNCLE_SOURCES),
  })
  .openapi('UncleEdgeOutcome');

export const ContentBody = z
  .object({
    content: NonBlankText.openapi({ description: 'the text the session receives: not only white space, at most 256 KiB (`413 content-too-large`)' }),
    acting_session_id: Ref.nullish().openapi({
      description: 'fleet key only: the session you act for (declared); a session token is the acting session itself',
    }),
  })
  .openapi('DeliveryContent');

export const ActingOnlyBody = z.object({ acting_session_id: Ref.nullish() }).openapi('QueueAction');

export const MessageParentBody = z
  .object({ content: NonBlankText.openapi({ description: 'not only white space, at most 256 KiB (`413 content-too-large`)' }) })
  .openapi('MessageParent');

export const LeaseBody = z
  .object({
    runtime_idle: z.boolean().optional().openapi({ description: 'the runtime is idle: when_idle items may be leased' }),
    max_items: z.number().int().min(1).max(MAX_LEASE_BATCH).optional(),
  })
  .openapi('InboxLease');

export const AckBody = z.object({ ids: z.array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).max(1000) }).openapi('InboxAck');

export const InboxQuery = z.object({
  state: commaList(INBOX_STATES, 'states (default: pending,leased,written,undelivered — what is not yet delivered)', ['all']).optional(),
  kind: commaList(INBOX_KINDS, 'kinds').optional(),
  limit: Limit.optional(),
  cursor: Cursor.optional(),
  format: z.enum(['json', 'markdown']).optional(),
});

export const DeliveryResponse = z.object({ inbox_item: InboxItemSchema, uncle_edge: UncleEdgeOutcomeSchema }).openapi('DeliveryResult');
export const QueueChangeResponse = z
  .object({
    inbox_item: InboxItemSchema,
    changed: z.boolean(),
    uncle_edge: orNull(UncleEdgeOutcomeSchema).openapi({ description: 'null when the change had no effect (`changed: false`) or withdrew the message' }),
  })
  .openapi('QueueChangeResult');
export const AckResponse = z
  .object({
    delivered: z.array(z.number().int()),
    already_delivered: z.array(z.number().int()),
    rejected: z.array(z.object({ id: z.number().int(), reason: z.enum(ACK_REJECTIONS) })),
  })
  .openapi('InboxAckResult');

export const WrittenBody = z.object({ ids: z.array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).max(1000) }).openapi('InboxWritten');
export const WrittenResponse = z
  .object({
    written: z.array(z.number().int()),
    already_written: z.array(z.number().int()),
    rejected: z.array(z.object({ id: z.number().int(), reason: z.enum(WRITE_REJECTIONS) })),
  })
  .openapi('InboxWrittenResult');

export const PromptReportBody = z
  .object({
    digest: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'the lowercase hex SHA-256 of the normalized prompt (64 characters)')
      .openapi({ description: 'lowercase hex SHA-256 of the UTF-8 of the prompt, CRLF/CR → LF and trailing whitespace trimmed' }),
    length: z.number().int().min(0).max(MAX_PROMPT_LENGTH).openapi({ description: 'code points of the normalized prompt (at most 16,777,216)' }),
  })
  .openapi('PromptReport');
export const PromptReportResponse = z
  .object({
    matched_item_id: z.number().int().nullable().openapi({ description: 'the written inbox item this prompt delivered, or null when it matched none' }),
  })
  .openapi('PromptReportResult');

export const InboxItemIdParam = z.object({
  item_id: z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ param: { name: 'item_id', in: 'path' }, example: 7, description: 'the inbox item id' }),
});
