import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppContext } from '../../app/kernel.js';
import { changeQueuedItem, deliverNew, listEnqueued, type NewDeliveryAction } from '../../app/inbox/index.js';
import type { QueueChange } from '../../core/inbox-rules.js';
import { serializeDelivery, serializeInboxItem, serializeQueueChange } from '../../render/inbox-json.js';
import { renderDelivery, renderInboxList, renderQueueChange } from '../../render/inbox-markdown.js';
import { json, markdown, route, type HttpEnv } from '../env.js';
import { jsonOrMarkdown } from '../responses.js';
import { ActingOnlyBody, ContentBody, DeliveryResponse, InboxItemSchema, InboxQuery, MessageIdParam, QueueChangeResponse } from '../inbox-schemas.js';
import { ErrorSchema, FormatQuery, RefParam } from '../schemas.js';

const errors = {
  400: {
    description: 'invalid input, or an acting_session_id from a caller that cannot declare one',
    content: { 'application/json': { schema: ErrorSchema } },
  },
  401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
  403: { description: 'not allowed (or acting-session-mismatch)', content: { 'application/json': { schema: ErrorSchema } } },
  404: { description: 'no such session or message', content: { 'application/json': { schema: ErrorSchema } } },
  409: { description: 'target-unavailable (archived), enqueued-message-not-pending', content: { 'application/json': { schema: ErrorSchema } } },
  413: { description: 'content-too-large', content: { 'application/json': { schema: ErrorSchema } } },
};
const UNCLE_NOTE =
  'The delivery commits first; then the uncle-edge rules run in their own transaction and `uncle_edge.outcome` reports what happened (a delivery is never undone by its edge). With a session token the caller is the acting session; a fleet key may declare `acting_session_id`; humans are never uncles.';

/** docs/api.md: follow-up, the enqueued-message queue and interrupt — the session-initiated paths into an inbox. */
export function registerDeliveryRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  const newItemRoute = (action: NewDeliveryAction, operationId: string, path: string, summary: string) =>
    route(
      app,
      createRoute({
        method: 'post',
        path,
        operationId,
        summary,
        description: UNCLE_NOTE,
        request: { params: RefParam, query: FormatQuery, body: { content: { 'application/json': { schema: ContentBody } }, required: true } },
        responses: { 201: jsonOrMarkdown(DeliveryResponse, 'delivered to the inbox, with the uncle-edge outcome'), ...errors },
      }),
      async (c) => {
        const body = c.req.valid('json');
        const r = await deliverNew(ctx, c.get('caller'), c.req.valid('param').ref, action, {
          content: body.content,
          actingSessionId: body.acting_session_id ?? null,
        });
        if (c.req.valid('query').format === 'markdown') return markdown(c, renderDelivery(r), 201);
        return json(c, serializeDelivery(r), 201);
      },
    );

  newItemRoute('follow_up', 'followUpSession', '/api/v1/sessions/{ref}/follow_up', 'Deliver a follow-up (the next user turn)');
  newItemRoute('enqueue', 'enqueueMessage', '/api/v1/sessions/{ref}/enqueued_messages', 'Enqueue a message, delivered when the session is idle');
  newItemRoute(
    'interrupt',
    'interruptSession',
    '/api/v1/sessions/{ref}/interrupt',
    'Interrupt: a new item with mode interrupt (the runtime stops its turn and takes it)',
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/enqueued_messages',
      operationId: 'listEnqueuedMessages',
      summary: "The session's queue (not yet delivered: pending, leased, written, undelivered — unless `state` says otherwise)",
      request: { params: RefParam, query: InboxQuery.omit({ kind: true }) },
      responses: {
        200: jsonOrMarkdown(
          z.object({ enqueued_messages: z.array(InboxItemSchema), next_cursor: z.string().nullable() }),
          'a page of enqueued messages, oldest first',
        ),
        ...errors,
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const r = await listEnqueued(ctx, c.get('caller'), c.req.valid('param').ref, {
        ...(q.state ? { states: q.state.split(',') } : {}),
        ...(q.cursor ? { cursor: q.cursor } : {}),
        ...(q.limit ? { limit: q.limit } : {}),
      });
      if (q.format === 'markdown') return markdown(c, renderInboxList(r.session.id, r.items, r.nextCursor, 'queue'));
      return json(c, { enqueued_messages: r.items.map(serializeInboxItem), next_cursor: r.nextCursor });
    },
  );

  const queueRoute = (change: QueueChange, operationId: string, method: 'post' | 'delete', path: string, summary: string) => {
    const description =
      change === 'withdraw'
        ? 'Withdraws a pending enqueued message before delivery (no uncle edge). A leased message is refused: the runtime may already be showing it.'
        : `${UNCLE_NOTE} A change with no effect records nothing (\`changed: false\`, \`uncle_edge: null\`).`;
    const query = FormatQuery.extend({ acting_session_id: z.string().max(200).optional() });
    const responses = { 200: jsonOrMarkdown(QueueChangeResponse, 'the message after the change'), ...errors };
    const answer = async (c: Context<HttpEnv>, p: { ref: string; mid: number }, q: z.output<typeof query>, bodyActing: string | number | null | undefined) => {
      const r = await changeQueuedItem(ctx, c.get('caller'), p.ref, p.mid, change, { actingSessionId: bodyActing ?? q.acting_session_id ?? null });
      if (q.format === 'markdown') return markdown(c, renderQueueChange(r, change));
      return json(c, serializeQueueChange(r));
    };
    if (method === 'post') {
      route(
        app,
        createRoute({
          method,
          path,
          operationId,
          summary,
          description,
          request: { params: MessageIdParam, query, body: { content: { 'application/json': { schema: ActingOnlyBody } }, required: false } },
          responses,
        }),
        async (c) => answer(c, c.req.valid('param'), c.req.valid('query'), c.req.valid('json')?.acting_session_id),
      );
    } else {
      route(app, createRoute({ method, path, operationId, summary, description, request: { params: MessageIdParam, query }, responses }), async (c) =>
        answer(c, c.req.valid('param'), c.req.valid('query'), undefined),
      );
    }
  };

  queueRoute(
    'send_now',
    'sendEnqueuedMessageNow',
    'post',
    '/api/v1/sessions/{ref}/enqueued_messages/{mid}/send_now',
    'Send a queued message now (it becomes the next turn)',
  );
  queueRoute(
    'interrupt',
    'interruptWithEnqueuedMessage',
    'post',
    '/api/v1/sessions/{ref}/enqueued_messages/{mid}/interrupt',
    'Interrupt with a queued message (mode interrupt)',
  );
  queueRoute('withdraw', 'withdrawEnqueuedMessage', 'delete', '/api/v1/sessions/{ref}/enqueued_messages/{mid}', 'Withdraw a queued message before delivery');
}
