import { z } from '@hono/zod-openapi';
import { INBOX_KINDS, INBOX_MODES, INBOX_STATES, MAX_LEASE_BATCH } from '../core/inbox-rules.js';
import { UNCLE_RULE_OUTCOMES, UNCLE_SOURCES } from '../core/uncle-edge-rules.js';
import { ActorSchema } from './schemas.js';

/** Wire schemas of the inbox, the paths into it and uncle edges (spec 02, 05, 06). */
const Ref = z.union([z.string().max(200), z.number().int().positive()]);
const RefPathParam = (name: string, description: string) =>
  z.string().min(1).max(200).openapi({ param: { name, in: 'path' }, example: '42', description });

export const MessageIdParam = z.object({
  ref: RefPathParam('ref', 'a session ref'),
  mid: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).openapi({ param: { name: 'mid', in: 'path' }, example: 7, description: 'the enqueued message (inbox item) id' }),
});

export const UncleLinkParams = z.object({
  junior: RefPathParam('junior', 'the junior session (the one the uncle queued or interrupted)'),
  uncle: RefPathParam('uncle', 'the uncle (senior) session'),
});

const Attributed = ActorSchema.extend({ basis: z.string().nullable() }).nullable();

export const InboxItemSchema = z
  .object({
    id: z.number().int(),
    session_id: z.number().int(),
    kind: z.enum(INBOX_KINDS),
    mode: z.enum(INBOX_MODES),
    state: z.enum(INBOX_STATES).openapi({ description: 'effective state: a lapsed lease reads as pending' }),
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

export const UncleEdgeOutcomeSchema = z
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
    content: z.string().openapi({ description: 'the text the session receives (at most 256 KiB)' }),
    acting_session_id: Ref.nullish().openapi({ description: 'fleet key only: the session you act for (declared); a session token is the acting session itself' }),
  })
  .openapi('DeliveryContent');

export const ActingOnlyBody = z.object({ acting_session_id: Ref.nullish() }).openapi('QueueAction');

export const MessageParentBody = z.object({ content: z.string() }).openapi('MessageParent');

export const LeaseBody = z
  .object({
    runtime_idle: z.boolean().optional().openapi({ description: 'the runtime is idle: when_idle items may be leased' }),
    max_items: z.number().int().min(1).max(MAX_LEASE_BATCH).optional(),
  })
  .openapi('InboxLease');

export const AckBody = z.object({ ids: z.array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).max(1000) }).openapi('InboxAck');

export const InboxQuery = z.object({
  state: z.string().max(200).optional().openapi({ description: 'comma-separated states, or `all` (default: pending,leased)' }),
  kind: z.string().max(200).optional().openapi({ description: 'comma-separated kinds' }),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().max(200).optional(),
  format: z.enum(['json', 'markdown']).optional(),
});

export const DeliveryResponse = z.object({ inbox_item: InboxItemSchema, uncle_edge: UncleEdgeOutcomeSchema }).openapi('DeliveryResult');
export const QueueChangeResponse = z
  .object({ inbox_item: InboxItemSchema, changed: z.boolean(), uncle_edge: UncleEdgeOutcomeSchema.nullable() })
  .openapi('QueueChangeResult');
export const AckResponse = z
  .object({
    delivered: z.array(z.number().int()),
    already_delivered: z.array(z.number().int()),
    rejected: z.array(z.object({ id: z.number().int(), reason: z.enum(['not-found', 'not-leased', 'withdrawn', 'expired']) })),
  })
  .openapi('InboxAckResult');
