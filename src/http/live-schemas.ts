import { createRoute, z } from '@hono/zod-openapi';
import { INBOX_KINDS, INBOX_MODES, INBOX_STATES } from '../core/inbox-rules.js';
import { ErrorSchema, HierarchySchema, SessionSchema } from './schemas.js';
import { orNull, SessionIdNumber } from './wire-rules.js';

/**
 * The live stream's frames, for the OpenAPI document (docs/api.md "Live events"). The route
 * parses its own query and header (src/http/routes/live.ts), so this is registered as
 * documentation only: each frame is `event:` (its type), `id:` (stored events only) and one
 * `data:` line of JSON, described here as the parsed object.
 */
const EventId = z
  .string()
  .regex(/^[0-9]+$/)
  .openapi({ description: 'the live event id (the `id:` line): send the last one seen as `Last-Event-ID` to resume' });

const frame = <T extends z.ZodType>(event: string, data: T, description: string, stored = true) =>
  z.object({ event: z.literal(event), ...(stored ? { id: EventId } : {}), data }).openapi(`LiveFrame_${event}`, { description });

const SessionIds = z.array(SessionIdNumber);

const LiveFrameSchema = z
  .discriminatedUnion('event', [
    frame('session_created', z.object({ session: SessionSchema }), 'a session was created (the session state; never its prompt, transcripts or metadata)'),
    frame('session_updated', z.object({ session: SessionSchema }), "a session's state changed (the full state; never its prompt, transcripts or metadata)"),
    frame('session_deleted', z.object({ id: SessionIdNumber, uid: z.string() }), 'a session was deleted'),
    frame(
      'human_message_recorded',
      z.object({ session_id: SessionIdNumber, human_message_id: SessionIdNumber }),
      'a human message was recorded on the session (ids only: read it with GET /api/v1/sessions/{ref}/provenance)',
    ),
    frame(
      'inbox_changed',
      z.object({
        session_id: SessionIdNumber,
        change: z.string().openapi({ description: 'what happened, e.g. `enqueued`, `leased`, `acked`, `withdrawn`' }),
        items: z.array(z.object({ id: SessionIdNumber, kind: z.enum(INBOX_KINDS), mode: z.enum(INBOX_MODES), state: z.enum(INBOX_STATES) })),
      }),
      "a session's inbox changed (ids and states only, never content)",
    ),
    frame(
      'message_delivered',
      z.object({
        message_id: z.string(),
        conversation_ref: z.string(),
        reply_to: orNull(z.string()),
        source_session_id: SessionIdNumber,
        target_session_id: SessionIdNumber,
        delivered_at: z.string(),
      }),
      'an agent message was acknowledged by its target',
    ),
    frame(
      'hierarchy_changed',
      z.object({
        session_ids: SessionIds.openapi({
          description: 'the sessions whose hierarchy view changed (those the subscriber may see); with `hierarchy`, the watched one',
        }),
        session_hierarchy: orNull(HierarchySchema).optional().openapi({ description: "with `hierarchy` only: the watched session's new hierarchy view" }),
      }),
      'derived by each node, not stored: it carries no id and is not replayed (after a reconnect, refetch the views)',
      false,
    ),
    frame(
      'resync',
      z.object({ reason: z.string() }),
      '`Last-Event-ID` is older than the backlog holds: events were missed; reload your state (its id is the newest event id)',
    ),
    frame('ready', z.object({ last_event_id: z.number().int().min(0) }), 'sent once, after any replay: the stream is live from `last_event_id` on', false),
  ])
  .openapi('LiveFrame', { description: 'one Server-Sent Events frame; keep-alive comments (`: keep-alive`) come every 15 s when nothing else does' });

export const LIVE_STREAM_ROUTE = createRoute({
  method: 'get',
  path: '/api/v1/events/stream',
  operationId: 'streamEvents',
  summary: 'Live events (Server-Sent Events), filtered to the sessions you may see',
  description:
    'A `text/event-stream` of live events about the sessions the caller may see. A reconnecting client sends `Last-Event-ID` ' +
    '(or `last_event_id`) and receives what it missed, then `ready`; beyond the backlog it gets `resync` first. ' +
    'The node ends every stream at shutdown: reconnect (to any node).',
  request: {
    headers: z.object({
      'Last-Event-ID': z
        .string()
        .regex(/^[0-9]+$/)
        .optional()
        .openapi({ description: 'the id of the last event received: the stream replays every later one first' }),
    }),
    query: z.object({
      last_event_id: z
        .string()
        .regex(/^[0-9]+$/)
        .optional()
        .openapi({ description: 'as `Last-Event-ID`, for clients that cannot set headers (the header wins)' }),
      hierarchy: z
        .array(z.string().min(1).max(200))
        .max(20)
        .optional()
        .openapi({
          param: { style: 'form', explode: true },
          description:
            "watch these sessions' hierarchies instead (repeatable or comma-separated, up to 20 refs): `hierarchy_changed` then carries " +
            '`{session_ids: [id], session_hierarchy}` each time one of those views really changed; an invisible ref is a 404',
        }),
    }),
  },
  responses: {
    200: {
      description: 'the stream (it never ends by itself)',
      content: { 'text/event-stream': { schema: LiveFrameSchema } },
    },
    404: { description: 'session-not-found: a `hierarchy` ref names no session you may see', content: { 'application/json': { schema: ErrorSchema } } },
  },
});
