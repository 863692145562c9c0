import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { readMessage } from '../../app/messages/index.js';
import { sendMessage } from '../../app/messages/index.js';
import { WarrantError } from '../../core/errors.js';
import { messageRefusal } from '../../core/message-refusals.js';
import { serializeMessage, serializeSendResult } from '../../render/message-json.js';
import { renderMessageStatus, renderReceipt } from '../../render/message-markdown.js';
import { json, markdown, route, type HttpEnv } from '../env.js';
import { jsonOrMarkdown } from '../responses.js';
import { MessageIdPathParam, MessageRefusalSchema, MessageSchema, SendMessageBody, SendResponse } from '../message-schemas.js';
import { ErrorSchema, FormatQuery } from '../schemas.js';

const refusal = (description: string) => ({ description, content: { 'application/json': { schema: MessageRefusalSchema } } });
/** A ref that resolves to no session the caller may see. */
const SessionNotFound = ErrorSchema.extend({ error: z.literal('session-not-found') });

/** docs/messages.md: send and status. Refusals carry `{error, message, action, previous_id?}`. */
export function registerMessageRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/messages',
      operationId: 'sendMessage',
      summary: 'Send an agent message, or an explicit reply (session token; fleet key with acting_session_id)',
      description:
        "Delivered to the target's inbox as an `agent_message` (a `warrant-message` frame: peer, untrusted, coordination-only). A reply (`reply_to`) needs a session token, goes to the original's sender, keeps its conversation_ref and cannot extend its deadline; at most one reply commits per original. Each refusal names its cause with one token and one action; when several apply, the first in the refusal table of docs/messages.md wins, and every refusal but `outcome-unknown` happens before anything is written.",
      request: { query: FormatQuery, body: { content: { 'application/json': { schema: SendMessageBody } }, required: true } },
      responses: {
        201: jsonOrMarkdown(SendResponse, 'accepted: the receipt'),
        200: jsonOrMarkdown(SendResponse, 'a retry with the same ref and content: the original receipt (`replayed: true`); nothing was delivered again'),
        401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
        403: {
          description: 'forbidden (humans, clients and admins do not send agent messages; the fleet only as a declared acting session), session-not-live',
          content: { 'application/json': { schema: ErrorSchema } },
        },
        404: {
          description: 'target-not-found (a refusal with its action), or session-not-found: the acting_session_id names no session you may see',
          content: { 'application/json': { schema: z.union([MessageRefusalSchema, SessionNotFound]) } },
        },
        409: refusal('ref-content-mismatch, source-activation-stale, target-unavailable, reply-…'),
        422: refusal('envelope-invalid'),
        503: refusal('store-unavailable, store-capacity, outcome-unknown'),
      },
    }),
    async (c) => {
      const r = await sendMessage(ctx, c.get('caller'), c.req.valid('json'));
      const md = c.req.valid('query').format === 'markdown';
      if (r.replayed) return md ? markdown(c, renderReceipt(r.receipt, r.replayed), 200) : json(c, serializeSendResult(r), 200);
      return md ? markdown(c, renderReceipt(r.receipt, r.replayed), 201) : json(c, serializeSendResult(r), 201);
    },
    // a message that fails its schema is an invalid envelope (422), never a plain 400
    (result) => {
      if (result.success) return undefined;
      const issue = result.error.issues[0];
      const path = issue?.path.map(String).join('.') || 'body';
      // acting_session_id says who sends, not what: a bad one is a plain invalid request
      if (result.target !== 'json' || path === 'acting_session_id')
        throw new WarrantError('invalid-request', `${path}: ${issue?.message ?? 'invalid'}.`, { details: { field: path } });
      throw messageRefusal('envelope-invalid', `${path}: ${issue?.message ?? 'invalid'}.`, { field: path, reason: issue?.message ?? 'invalid' });
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/messages/{id}',
      operationId: 'getMessage',
      summary: "A message's status (its sender, its target and admins)",
      request: { params: MessageIdPathParam, query: FormatQuery },
      responses: {
        200: jsonOrMarkdown(z.object({ message: MessageSchema }), 'the envelope with its state; the payload until retention reclaims it'),
        401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
        404: { description: 'message-not-found (also for a message you may not read)', content: { 'application/json': { schema: ErrorSchema } } },
      },
    }),
    async (c) => {
      const m = await readMessage(ctx, c.get('caller'), c.req.valid('param').id);
      if (c.req.valid('query').format === 'markdown') return markdown(c, renderMessageStatus(m));
      return json(c, { message: serializeMessage(m) });
    },
  );
}
