import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { messageParent } from '../../app/inbox/index.js';
import { ackInbox, leaseInbox, listInbox } from '../../app/inbox/index.js';
import { serializeAckReport, serializeInboxItem, serializeLeasedItem } from '../../render/inbox-json.js';
import { renderInboxList, renderReadInbox, renderResend } from '../../render/inbox-markdown.js';
import { reportPrompt, reportWritten, resendInboxItem } from '../../app/inbox/index.js';
import { json, markdown, route, type HttpEnv } from '../env.js';
import { jsonOrMarkdown } from '../responses.js';
import {
  AckBody,
  AckResponse,
  ActingOnlyBody,
  InboxItemIdParam,
  InboxItemSchema,
  InboxQuery,
  LeaseBody,
  LeasedItemSchema,
  MessageParentBody,
  PromptReportBody,
  PromptReportResponse,
  WrittenBody,
  WrittenResponse,
} from '../inbox-schemas.js';
import { ErrorSchema, FormatQuery, RefParam } from '../schemas.js';

const errors = {
  400: { description: 'invalid input', content: { 'application/json': { schema: ErrorSchema } } },
  401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
  403: { description: 'not allowed', content: { 'application/json': { schema: ErrorSchema } } },
  404: { description: 'no such session', content: { 'application/json': { schema: ErrorSchema } } },
  409: { description: 'no-parent, target-unavailable', content: { 'application/json': { schema: ErrorSchema } } },
};
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

/** docs/messages.md: list (no effect), lease, acknowledge, delivery into the agent (written, prompts, resend); and the child → parent channel. */
export function registerInboxRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/inbox',
      operationId: 'listInbox',
      summary: "List the session's inbox (changes nothing)",
      request: { params: RefParam, query: InboxQuery },
      responses: {
        200: jsonOrMarkdown(z.object({ items: z.array(InboxItemSchema), next_cursor: z.string().nullable() }), 'a page of items, oldest first'),
        ...errors,
      },
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
      operationId: 'leaseInbox',
      summary: 'Lease items for the runtime: interrupt first; when_idle only when idle',
      description:
        'The session itself (its token), fleet supervisors and admins. Leased items are handed out again only when their lease lapses unacknowledged (`redelivery: true`); acknowledge with `…/inbox/ack`.',
      request: { params: RefParam, query: FormatQuery, body: { content: { 'application/json': { schema: LeaseBody } }, required: false } },
      responses: {
        200: jsonOrMarkdown(z.object({ items: z.array(LeasedItemSchema), lease_expires_at: z.string().nullable() }), 'the newly leased items'),
        ...errors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      const r = await leaseInbox(ctx, c.get('caller'), c.req.valid('param').ref, {
        ...(body.runtime_idle !== undefined ? { runtimeIdle: body.runtime_idle } : {}),
        ...(body.max_items !== undefined ? { maxItems: body.max_items } : {}),
      });
      if (c.req.valid('query').format === 'markdown')
        return markdown(
          c,
          renderReadInbox({ ack: { delivered: [], alreadyDelivered: [], rejected: [] }, items: r.items, leaseExpiresAt: r.leaseExpiresAt, delivery: 'mcp' }),
        );
      return json(c, { items: r.items.map(serializeLeasedItem), lease_expires_at: r.leaseExpiresAt });
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/inbox/ack',
      operationId: 'acknowledgeInbox',
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
      path: '/api/v1/sessions/{ref}/inbox/written',
      operationId: 'reportInboxWritten',
      summary: 'The runner wrote these leased items into its agent (state written)',
      description:
        "The session itself (its token), fleet supervisors and admins. A written item is never leased again (typed bytes cannot be taken back) and is not delivered until the agent's own prompt report matches it (`…/prompts`); an acknowledgement cannot deliver it. With no matching report within the lease (60 s by default) it reads `undelivered`, which only a resend (`POST /api/v1/inbox/{item_id}/resend`) makes `pending` again. `control` items act on the process and are never written.",
      request: { params: RefParam, body: { content: { 'application/json': { schema: WrittenBody } }, required: true } },
      responses: { 200: ok(WrittenResponse, 'what was marked written, and what was not (with why)'), ...errors },
    }),
    async (c) => {
      const r = await reportWritten(ctx, c.get('caller'), c.req.valid('param').ref, c.req.valid('json').ids);
      return json(c, { written: r.written, already_written: r.alreadyWritten, rejected: r.rejected });
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/prompts',
      operationId: 'reportPrompt',
      summary: "The agent took a prompt (its prompt hook's report, relayed by the runner): digest and length only",
      description:
        "The session itself (its token), fleet supervisors and admins. The server compares the digest and length with the frames of this session's written items (line endings normalized, trailing whitespace trimmed) and marks the oldest equal one `delivered` — however late, even after it read `undelivered`. One report delivers at most one item; a report that matches nothing changes nothing. The report never says what it delivered: the server decides.",
      request: { params: RefParam, body: { content: { 'application/json': { schema: PromptReportBody } }, required: true } },
      responses: { 200: ok(PromptReportResponse, 'the item this prompt delivered, or null'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const r = await reportPrompt(ctx, c.get('caller'), c.req.valid('param').ref, { digest: body.digest, length: body.length });
      return json(c, { matched_item_id: r.matchedItemId });
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/inbox/{item_id}/resend',
      operationId: 'resendInboxItem',
      summary: 'Resend an undelivered item: it returns to pending',
      description:
        "Whoever may deliver to the item's session (a live session token, the fleet, humans who can see it, clients, admins). Only an `undelivered` item: one its runner wrote into the agent that no prompt report matched within the lease. An item of a session you cannot see reads as not found.",
      request: { params: InboxItemIdParam, query: FormatQuery, body: { content: { 'application/json': { schema: ActingOnlyBody } }, required: false } },
      responses: {
        200: jsonOrMarkdown(z.object({ inbox_item: InboxItemSchema }), 'the item, pending again'),
        ...errors,
        404: { description: 'inbox-item-not-found', content: { 'application/json': { schema: ErrorSchema } } },
        409: { description: 'inbox-item-not-undelivered, target-unavailable (archived)', content: { 'application/json': { schema: ErrorSchema } } },
      },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      const r = await resendInboxItem(ctx, c.get('caller'), c.req.valid('param').item_id, { actingSessionId: body.acting_session_id ?? null });
      if (c.req.valid('query').format === 'markdown') return markdown(c, renderResend(r.item));
      return json(c, { inbox_item: serializeInboxItem(r.item) });
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/message_parent',
      operationId: 'messageParent',
      summary: "Message the session's own parent (session token of that session only)",
      description:
        "The target is read from the caller's lineage parent; the parent receives a `parent_message` item framed as peer, untrusted, coordination-only. No uncle edge is written.",
      request: { params: RefParam, body: { content: { 'application/json': { schema: MessageParentBody } }, required: true } },
      responses: { 201: ok(z.object({ inbox_item: InboxItemSchema, parent_session_id: z.number().int() }), 'delivered to the parent'), ...errors },
    }),
    async (c) => {
      const r = await messageParent(ctx, c.get('caller'), c.req.valid('param').ref, c.req.valid('json').content);
      return json(c, { inbox_item: serializeInboxItem(r.item), parent_session_id: r.parentSessionId }, 201);
    },
  );
}
