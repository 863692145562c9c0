import { CONVERSATION_SOURCES } from '../core/conversations.js';
import { z } from '@hono/zod-openapi';
import { MAX_PAYLOAD_BYTES, MAX_REF_LENGTH, MAX_TO_LENGTH, MAX_TTL_SECONDS, MESSAGE_STATES } from '../core/message-envelope.js';
import { MESSAGE_REFUSAL_ORDER } from '../core/message-refusals.js';
import { MAX_CONVERSATION_ID_LENGTH, MAX_PROVIDER_LENGTH, MAX_TRANSCRIPT_PATH_LENGTH } from '../core/conversations.js';
import { NonBlankText, ReportedText, SessionIdNumber } from './wire-rules.js';

/** Wire schemas of agent messages and provider conversation history (docs/messages.md, docs/api.md). */
const Ref = z.union([NonBlankText.max(MAX_TO_LENGTH), SessionIdNumber]);

export const SendMessageBody = z
  .object({
    to: Ref.nullish().openapi({
      description: "the target session ref; required for a new message; for a reply optional (it must then name the original's sender)",
    }),
    payload: NonBlankText.openapi({ description: `UTF-8 text, not only white space, at most ${MAX_PAYLOAD_BYTES} bytes` }),
    ref: ReportedText(MAX_REF_LENGTH).nullish().openapi({
      description: 'your idempotency key, unique per sender (minted when absent): a retry with the same ref and content returns the original receipt',
    }),
    ttl: z
      .number()
      .int()
      .min(1)
      .max(MAX_TTL_SECONDS)
      .nullish()
      .openapi({
        description: `seconds until the deadline, 1 to ${MAX_TTL_SECONDS} (default 900; a reply defaults to the original's remaining time and cannot extend it)`,
      }),
    reply_to: z
      .union([z.string().regex(/^ *(?:msg_[0-9a-f]{32}|0*[1-9][0-9]{0,15}) *$/, 'a message id (msg_ and 32 hex digits) or an inbox item id'), SessionIdNumber])
      .nullish()
      .openapi({ description: 'the id of what this answers: an agent message (msg_…) or an inbox item your session received' }),
    acting_session_id: Ref.nullish().openapi({ description: 'fleet key only: the session you send for (declared; a declared sender cannot reply)' }),
  })
  .openapi('SendMessage');

const ReceiptSchema = z
  .object({
    id: z.string(),
    ref: z.string(),
    ref_minted: z.boolean(),
    conversation_ref: z.string(),
    reply_to: z.string().nullable(),
    source: z.object({
      session_id: z.number().int(),
      basis: z.enum(['authenticated', 'declared']),
      activation: z.number().int(),
      provider_conversation: z.string().nullable(),
    }),
    target: z.object({ session_id: z.number().int(), provider_conversation: z.string().nullable() }),
    deadline: z.string(),
    payload_bytes: z.number().int(),
    payload_sha256: z.string().openapi({ description: '64 lowercase hex: SHA-256 of the exact payload bytes' }),
    accepted_at: z.string(),
    inbox_item_id: z.number().int().nullable(),
  })
  .openapi('MessageReceipt');

export const MessageSchema = ReceiptSchema.extend({
  state: z.enum(MESSAGE_STATES),
  terminal_at: z.string().nullable(),
  terminal_reason: z.enum(['acknowledged', 'deadline', 'target-deleted']).nullable(),
  payload: z.string().nullable().openapi({ description: 'null once retention reclaimed it' }),
  payload_reclaimed_at: z.string().nullable(),
  reply_id: z.string().nullable().openapi({ description: 'the reply committed to this message, when one' }),
}).openapi('AgentMessage');

export const SendResponse = z.object({ message: ReceiptSchema, replayed: z.boolean() }).openapi('SendMessageResult');

export const MessageRefusalSchema = z
  .object({
    error: z.enum(MESSAGE_REFUSAL_ORDER),
    message: z.string(),
    action: z.string(),
    previous_id: z.string().optional(),
  })
  .catchall(z.unknown())
  .openapi('MessageRefusal');

export const MessageIdPathParam = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'msg_3f2a9c1e8b7d6a5f4e3d2c1b0a998877', description: 'the message id' }),
});

export const ConversationBody = z
  .object({
    provider: ReportedText(MAX_PROVIDER_LENGTH).openapi({
      description: "the agent provider (`claude-code`, `codex`, …): must match the session's provider when it has one",
    }),
    conversation_id: ReportedText(MAX_CONVERSATION_ID_LENGTH),
    transcript_path: ReportedText(MAX_TRANSCRIPT_PATH_LENGTH).nullish().openapi({ description: 'stored exactly as reported; the server never opens it' }),
  })
  .openapi('ConversationReport');

export const ConversationReportResponse = z
  .object({
    session_id: z.number().int(),
    provider: z.string(),
    conversation_id: z.string(),
    transcript_path: z.string().nullable(),
    changed: z.boolean().openapi({ description: 'false: the session already ran in this conversation; nothing was appended' }),
    previous_conversation: z.string().nullable(),
    source: z
      .enum(['runtime-reported', 'declared'])
      .nullable()
      .openapi({ description: 'the source of the row appended (null when nothing was): `runtime-reported` with a session token, else `declared`' }),
  })
  .openapi('ConversationReportResult');

export const ConversationSchema = z
  .object({
    provider: z.string().nullable(),
    conversation_id: z.string(),
    status: z.enum(['current', 'observed', 'estimated']).openapi({
      description: '`current`: where it runs now; `observed`: it left this conversation, which was reported (see `sources`); `estimated`: only backfilled',
    }),
    observed_at: z.string().nullable(),
    transcript_path: z.string().nullable(),
    first_observed_at: z.string().nullable(),
    observations: z.number().int(),
    sources: z.array(z.enum(CONVERSATION_SOURCES)).openapi({
      description:
        'who reported its rows: `runtime-reported` (a session token outside MCP — the hooks, the runner; not verified), `declared` (an MCP surface, a fleet key or an admin), `estimated` (backfilled from a transcript); `observed` marks rows recorded before reports were told apart, kept as they were',
    }),
    affiliation: z.object({ title: z.string().nullable(), owner: z.string().nullable(), origin_id: z.number().int().nullable() }),
  })
  .openapi('ProviderConversation');

export const EstimatedBody = ConversationBody.extend({ session_id: Ref }).openapi('EstimatedConversation');

export const EstimatedResponse = z
  .object({ outcome: z.enum(['attributed', 'already_estimated', 'skipped_observed']), session_id: z.number().int(), conversation_id: z.string() })
  .openapi('EstimatedConversationResult');
