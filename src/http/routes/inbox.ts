import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/context.js';
import { messageParent } from '../../app/inbox/message-parent.js';
import { ackInbox, leaseInbox, listInbox } from '../../app/inbox/runtime-inbox.js';
import { serializeAckReport, serializeInboxItem, serializeLeasedItem } from '../../render/inbox-json.js';
import { renderInboxList, renderReadInbox } from '../../render/inbox-markdown.js';
import { json, markdown, route, type HttpEnv } from '../env.js';
import { AckBody, AckResponse, InboxItemSchema, InboxQuery, LeaseBody, LeasedItemSchema, MessageParentBody } from '../inbox-schemas.js';
import { ErrorSchema, FormatQuery, RefParam } from '../schemas.js';

const errors = {
  400: { description: 'invalid input', content: { 'application/json': { schema: ErrorSchema } } },
  401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
  403: { description: 'not allowed', content: { 'application/json': { schema: ErrorSchema } } },
  404: { description: 'no such session', content: { 'application/json': { schema: ErrorSchema } } },
  409: { description: 'no-parent, target-unavailable', content: { 'application/json': { schema: ErrorSchema } } },
};
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

/** spec 05 "The inbox": list (no effect), lease, acknowledge; and the child → parent channel. */
export function registerInboxRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/inbox',
      summary: "List the session's inbox (changes nothing)",
      request: { params: RefParam, query: InboxQuery },
      responses: { 200: ok(z.object({ items: z.array(InboxItemSchema), next_cursor: z.string().nullable() }), 'a page of items, oldest first'), ...errors },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const r = await listInbox(ctx, c.get('caller'), c.req.valid('param').ref, {
        ...(q.state ? { states: q.state.split(',') } : {}),
        ...(q.kind ? { kinds: q.kind.split(',') } : {}),
        ...(q.cursor ? { cursor: q.cursor } : {}),
        ...(q.limit ? { limit: q.limit } : {}),
      });
      if (q.format === 'markdown') return markdown(c, renderInboxList(r.session.id, r.items, r.nextCursor));
      return json(c, { items: r.items.map(serializeInboxItem), next_cursor: r.nextCursor });
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/inbox/lease',
      summary: 'Lease items for the runtime: interrupt first; when_idle only when idle',
      description:
        'The session itself (its token), fleet supervisors and admins. Leased items are handed out again only when their lease lapses unacknowledged (`redelivery: true`); acknowledge with `…/inbox/ack`.',
      request: { params: RefParam, query: FormatQuery, body: { content: { 'application/json': { schema: LeaseBody } }, required: false } },
      responses: { 200: ok(z.object({ items: z.array(LeasedItemSchema), lease_expires_at: z.string().nullable() }), 'the newly leased items'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      const r = await leaseInbox(ctx, c.get('caller'), c.req.valid('param').ref, {
        ...(body.runtime_idle !== undefined ? { runtimeIdle: body.runtime_idle } : {}),
        ...(body.max_items !== undefined ? { maxItems: body.max_items } : {}),
      });
      if (c.req.valid('query').format === 'markdown') return markdown(c, renderReadInbox({ ack: { delivered: [], alreadyDelivered: [], rejected: [] }, items: r.items, leaseExpiresAt: r.leaseExpiresAt }));
      return json(c, { items: r.items.map(serializeLeasedItem), lease_expires_at: r.leaseExpiresAt });
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/inbox/ack',
      summary: 'Acknowledge delivery of leased items',
      request: { params: RefParam, body: { content: { 'application/json': { schema: AckBody } }, required: true } },
      responses: { 200: ok(AckResponse, 'what was marked delivered, and what was not (with why)'), ...errors },
    }),
    async (c) => json(c, serializeAckReport(await ackInbox(ctx, c.get('caller'), c.req.valid('param').ref, c.req.valid('json').ids))),
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/message_parent',
      summary: "Message the session's own parent (session token of that session only)",
      description: 'The target is read from the caller\'s lineage parent; the parent receives a `parent_message` item framed as peer, untrusted, coordination-only. No uncle edge is written.',
      request: { params: RefParam, body: { content: { 'application/json': { schema: MessageParentBody } }, required: true } },
      responses: { 201: ok(z.object({ inbox_item: InboxItemSchema, parent_session_id: z.number().int() }), 'delivered to the parent'), ...errors },
    }),
    async (c) => {
      const r = await messageParent(ctx, c.get('caller'), c.req.valid('param').ref, c.req.valid('json').content);
      return json(c, { inbox_item: serializeInboxItem(r.item), parent_session_id: r.parentSessionId }, 201);
    },
  );
}
