import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { listConversations, recordEstimatedConversation, reportConversation } from '../../app/conversations/index.js';
import { serializeConversation } from '../../render/message-json.js';
import { renderConversations } from '../../render/message-markdown.js';
import { json, markdown, route, type HttpEnv } from '../env.js';
import { jsonOrMarkdown } from '../responses.js';
import { ConversationBody, ConversationReportResponse, ConversationSchema, EstimatedBody, EstimatedResponse } from '../message-schemas.js';
import { ErrorSchema, FormatQuery, RefParam } from '../schemas.js';

const errors = {
  400: { description: 'invalid input', content: { 'application/json': { schema: ErrorSchema } } },
  401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
  403: { description: 'not allowed', content: { 'application/json': { schema: ErrorSchema } } },
  404: { description: 'no such session', content: { 'application/json': { schema: ErrorSchema } } },
  409: { description: 'provider-mismatch: the session runs on another provider; nothing changed', content: { 'application/json': { schema: ErrorSchema } } },
};
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

/** docs/messages.md. */
export function registerConversationRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/conversation',
      operationId: 'reportSessionConversation',
      summary:
        'Report the provider conversation the session runs in (the session itself, the runtime that created it as a subagent session, fleet supervisors, admins)',
      description:
        "Binding or replacing the conversation appends a row to the session's conversation history — `runtime-reported` when a session token reports it (the hooks, the runner), `declared` for a fleet key or an admin — with its title, owner and origin at this moment; re-observing the current one appends nothing. `transcript_path` is stored exactly as reported: the server never opens it. `warrant hook claude-code` calls this from a SessionStart hook.",
      request: { params: RefParam, body: { content: { 'application/json': { schema: ConversationBody } }, required: true } },
      responses: { 200: ok(ConversationReportResponse, 'recorded (or already current)'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const r = await reportConversation(ctx, c.get('caller'), c.req.valid('param').ref, {
        provider: body.provider,
        conversationId: body.conversation_id,
        transcriptPath: body.transcript_path,
      });
      return json(c, {
        session_id: r.sessionId,
        provider: r.provider,
        conversation_id: r.conversationId,
        transcript_path: r.transcriptPath,
        changed: r.changed,
        previous_conversation: r.previousConversation,
        source: r.source,
      });
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/conversations',
      operationId: 'listSessionConversations',
      summary: "The session's provider conversations, merged per conversation",
      description:
        "Latest observation time and path per conversation; `current` when it is the session's present conversation, `observed` if any row is a report, `estimated` only when every row is (backfilled from transcripts); `sources` says who reported the rows.",
      request: { params: RefParam, query: FormatQuery },
      responses: {
        200: jsonOrMarkdown(
          z.object({ session_id: z.number().int(), conversations: z.array(ConversationSchema) }),
          'current first, then the most recently observed',
        ),
        ...errors,
      },
    }),
    async (c) => {
      const r = await listConversations(ctx, c.get('caller'), c.req.valid('param').ref);
      if (c.req.valid('query').format === 'markdown') return markdown(c, renderConversations(r.session.id, r.conversations));
      return json(c, { session_id: r.session.id, conversations: r.conversations.map(serializeConversation) });
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/conversations/estimated',
      operationId: 'recordEstimatedConversation',
      summary: 'Record a backfilled (estimated) conversation of a session (admins; `warrant conversations backfill`)',
      description:
        'Idempotent: checked under a lock held across the check and the append. `skipped_observed` when the session runs in or was observed in that conversation, `already_estimated` when an estimate exists, else `attributed` (one estimated row appended).',
      request: { body: { content: { 'application/json': { schema: EstimatedBody } }, required: true } },
      responses: { 200: ok(EstimatedResponse, 'what the server found and did'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const r = await recordEstimatedConversation(ctx, c.get('caller'), {
        sessionId: body.session_id,
        provider: body.provider,
        conversationId: body.conversation_id,
        transcriptPath: body.transcript_path,
      });
      return json(c, { outcome: r.outcome, session_id: r.sessionId, conversation_id: r.conversationId });
    },
  );
}
