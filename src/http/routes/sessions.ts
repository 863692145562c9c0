import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { createSession } from '../../app/sessions/index.js';
import { deleteSession, listDeletions } from '../../app/sessions/index.js';
import { patchSession } from '../../app/sessions/index.js';
import { getSessionDetail } from '../../app/sessions/index.js';
import { listSessionEvents, listSessions } from '../../app/sessions/index.js';
import { serializeCreateResult, serializeDeletion, serializeEvent } from '../../render/record-json.js';
import { serializeSession } from '../../render/session-json.js';
import { serializeSessionDetail } from '../../render/session-detail-json.js';
import { json, markdown, route, type HttpEnv } from '../env.js';
import { jsonOrMarkdown } from '../responses.js';
import { renderSessionDetail } from '../../render/session-detail-markdown.js';
import { renderSessionList } from '../../render/session-markdown.js';
import { renderDeletions, renderEvents } from '../../render/attribution-markdown.js';
import {
  CreateSessionBody,
  CreateSessionResponse,
  DeletionsQuery,
  ErrorSchema,
  EventSchema,
  EventsQuery,
  FormatQuery,
  HierarchySchema,
  ListSessionsQuery,
  PatchSessionBody,
  RefParam,
  SessionSchema,
} from '../schemas.js';

const errors = {
  400: { description: 'invalid input', content: { 'application/json': { schema: ErrorSchema } } },
  401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
  403: { description: 'not allowed', content: { 'application/json': { schema: ErrorSchema } } },
  404: { description: 'no such session (or not visible)', content: { 'application/json': { schema: ErrorSchema } } },
  409: { description: 'conflict or refusal', content: { 'application/json': { schema: ErrorSchema } } },
};

const jsonBody = <T extends z.ZodType>(schema: T, required = false) => ({ content: { 'application/json': { schema } }, required });
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

export function registerSessionRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions',
      operationId: 'createSession',
      summary: 'Create a session',
      description:
        'The parent comes from the authenticated session token, else `parent_session_id` (alias `parentSessionId`), else the `X-Warrant-Parent-Session` header, else `custom_metadata.router_session_id`; an unresolvable hint never fails the create (`parent_resolution` says why). `Idempotency-Key` replays return the original response and record nothing.',
      request: {
        body: jsonBody(CreateSessionBody),
        headers: z.object({
          'idempotency-key': z.string().max(200).optional(),
          'x-warrant-parent-session': z.string().max(10_000).optional(),
        }),
      },
      responses: { 201: ok(CreateSessionResponse, 'created (or the replayed original)'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const headers = c.req.valid('header');
      const parentHint = body.parent_session_id ?? body.parentSessionId;
      const result = await createSession(ctx, c.get('caller'), {
        title: body.title ?? null,
        prompt: body.prompt ?? null,
        originalPrompt: body.original_prompt ?? null,
        agentRoot: body.agent_root ?? null,
        model: body.model ?? null,
        ...(body.starred !== undefined ? { starred: body.starred } : {}),
        ...(body.messaging ? { messaging: body.messaging } : {}),
        provider: body.provider ?? null,
        providerConversation: body.provider_conversation ?? null,
        ...(body.custom_metadata ? { customMetadata: body.custom_metadata } : {}),
        parentHint: parentHint === undefined || parentHint === null ? null : String(parentHint),
        parentHeader: headers['x-warrant-parent-session'] ?? null,
        actingSessionId: body.acting_session_id ?? null,
        owner: body.owner ?? null,
        genesis: body.genesis ?? null,
        schedulingClass: body.scheduling_class ?? null,
        attach: body.attach ?? false,
        ...(body.runner ? { runner: { tty: body.runner.tty } } : {}),
        ...(body.delivery ? { delivery: body.delivery } : {}),
        idempotencyKey: headers['idempotency-key'] ?? null,
      });
      return json(c, serializeCreateResult(result), 201);
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions',
      operationId: 'listSessions',
      summary: 'List sessions (newest first, cursor-paginated)',
      request: { query: ListSessionsQuery.extend(FormatQuery.shape) },
      responses: { 200: jsonOrMarkdown(z.object({ sessions: z.array(SessionSchema), next_cursor: z.string().nullable() }), 'a page of sessions'), ...errors },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const result = await listSessions(ctx, c.get('caller'), {
        ...(q.status ? { status: q.status.split(',').map((s) => s.trim()) } : {}),
        ...(q.owner !== undefined ? { owner: q.owner } : {}),
        ...(q.parent !== undefined ? { parent: q.parent } : {}),
        ...(q.root !== undefined ? { root: q.root === 'true' } : {}),
        ...(q.q ? { q: q.q } : {}),
        ...(q.caused_by !== undefined ? { causedBy: q.caused_by } : {}),
        ...(q.limit ? { limit: q.limit } : {}),
        ...(q.cursor ? { cursor: q.cursor } : {}),
      });
      if (q.format === 'markdown') return markdown(c, renderSessionList(result.sessions, result.nextCursor));
      return json(c, { sessions: result.sessions.map(serializeSession), next_cursor: result.nextCursor });
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}',
      operationId: 'getSession',
      summary: 'A session, with its hierarchy and human messages beside it',
      request: { params: RefParam, query: FormatQuery },
      responses: {
        200: jsonOrMarkdown(z.object({ session: SessionSchema, session_hierarchy: HierarchySchema }).catchall(z.unknown()), 'the session'),
        ...errors,
      },
    }),
    async (c) => {
      const markdownWanted = c.req.valid('query').format === 'markdown';
      const detail = await getSessionDetail(ctx, c.get('caller'), c.req.valid('param').ref, { summary: markdownWanted });
      if (markdownWanted) return markdown(c, renderSessionDetail(detail));
      return json(c, serializeSessionDetail(detail));
    },
  );

  route(
    app,
    createRoute({
      method: 'patch',
      path: '/api/v1/sessions/{ref}',
      operationId: 'patchSession',
      summary: 'Change title, starred, model or messaging, or correct the parent (one attributed event per field that changed)',
      description:
        '`parent_session_id` is an operator correction (humans for their own sessions, admins): written under the graph lock with `parent_basis = corrected` and a `parent_changed` event. Refusals: `404 parent-not-found`, `409 parent-not-older`, `409 parent-cycle`, `409 parent-cycle-unproven`, `409 parent-owner-mismatch` (multi-user), `409 legacy-parent` (clearing a parent that came from the legacy key).',
      request: { params: RefParam, body: jsonBody(PatchSessionBody, true) },
      responses: { 200: ok(z.object({ session: SessionSchema, changed: z.array(z.string()) }), 'the session after the change'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const result = await patchSession(ctx, c.get('caller'), c.req.valid('param').ref, {
        ...(body.title !== undefined ? { title: body.title } : {}),
        ...(body.starred !== undefined ? { starred: body.starred } : {}),
        ...(body.model !== undefined ? { model: body.model } : {}),
        ...(body.messaging !== undefined ? { messaging: body.messaging } : {}),
        ...(body.parent_session_id !== undefined ? { parentSessionId: body.parent_session_id } : {}),
        actingSessionId: body.acting_session_id ?? null,
      });
      return json(c, { session: serializeSession(result.session), changed: result.changed });
    },
  );

  route(
    app,
    createRoute({
      method: 'delete',
      path: '/api/v1/sessions/{ref}',
      operationId: 'deleteSession',
      summary: 'Delete a session and write its deletion record (humans and admins)',
      request: { params: RefParam },
      responses: { 200: ok(z.object({ deletion: z.record(z.string(), z.unknown()) }), 'the deletion record'), ...errors },
    }),
    async (c) => {
      const result = await deleteSession(ctx, c.get('caller'), c.req.valid('param').ref);
      return json(c, { deletion: serializeDeletion(result.deletion) });
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/events',
      operationId: 'listSessionEvents',
      summary: 'The attributed timeline, actor and cause expanded, paginated by seq',
      request: { params: RefParam, query: EventsQuery.extend(FormatQuery.shape) },
      responses: { 200: jsonOrMarkdown(z.object({ events: z.array(EventSchema), next_cursor: z.string().nullable() }), 'a page of events'), ...errors },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const result = await listSessionEvents(ctx, c.get('caller'), c.req.valid('param').ref, {
        ...(q.cursor ? { cursor: q.cursor } : {}),
        ...(q.limit ? { limit: q.limit } : {}),
        ...(q.type ? { types: q.type.split(',').map((t) => t.trim()) } : {}),
      });
      if (q.format === 'markdown') return markdown(c, renderEvents(result.sessionId, result.events, result.nextCursor));
      return json(c, { events: result.events.map(serializeEvent), next_cursor: result.nextCursor });
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/session_deletions',
      operationId: 'listSessionDeletions',
      summary: 'Deletion records, newest first (filters: actor, since/until, session_uid; only sessions the caller may see)',
      request: { query: DeletionsQuery.extend(FormatQuery.shape) },
      responses: {
        200: jsonOrMarkdown(
          z.object({ deletions: z.array(z.record(z.string(), z.unknown())), next_cursor: z.string().nullable() }),
          'a page of deletion records',
        ),
        ...errors,
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const r = await listDeletions(ctx, c.get('caller'), {
        ...(q.actor ? { actor: q.actor } : {}),
        ...(q.since ? { since: q.since } : {}),
        ...(q.until ? { until: q.until } : {}),
        ...(q.session_uid ? { sessionUid: q.session_uid } : {}),
        ...(q.cursor ? { cursor: q.cursor } : {}),
        ...(q.limit ? { limit: q.limit } : {}),
      });
      if (q.format === 'markdown') return markdown(c, renderDeletions(r.deletions, r.nextCursor));
      return json(c, { deletions: r.deletions.map(serializeDeletion), next_cursor: r.nextCursor });
    },
  );
}
