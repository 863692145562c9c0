import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { createRuntimeChild } from '../../app/sessions/index.js';
import { appendTranscript, readTranscript, readTranscriptPosition, type TranscriptRecordView } from '../../app/sessions/index.js';
import { serializeSession } from '../../render/session-json.js';
import { json, route, type HttpEnv } from '../env.js';
import {
  ErrorSchema,
  PageQuery,
  RefParam,
  RuntimeChildBody,
  SessionSchema,
  TranscriptAppendResponse,
  TranscriptBody,
  TranscriptPositionQuery,
  TranscriptPositionResponse,
  TranscriptRecordSchema,
} from '../schemas.js';

const err = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });
const errors = {
  400: err('invalid input'),
  401: err('no or bad credential'),
  403: err('not allowed'),
  404: err('no such session (or not visible)'),
};
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

/** Wire form of a transcript record (snake_case). */
function serializeTranscriptRecord(r: TranscriptRecordView) {
  return {
    id: r.id,
    provider: r.provider,
    conversation_id: r.conversationId,
    offset: r.offset,
    restarted: r.restarted,
    line: r.line,
    record: r.record,
    created_at: r.createdAt,
  };
}

/** Subagent and nested-agent sessions, and transcripts appended by byte offset (docs/design/agent-runtimes.md). */
export function registerAgentRuntimeRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/children',
      operationId: 'createRuntimeChild',
      summary: "A runtime creates the session of its built-in subagent or nested agent (the parent's own session token only)",
      description:
        "Only the session token of `{ref}` may call this. The child's spawn parent is `{ref}` (basis `authenticated`), its creator the parent session, `agent_root` the subagent's type, its conversation (`provider`, `conversation_id`) bound, genesis and scheduling class inherited, status `running` — with no token of its own: the parent's token reports the child's runtime state, conversation and transcript (and nothing else as the child). The same (parent, provider, conversation_id) again is the same child, attached again (`200`, `created: false`). A `subagent` must run on its parent's provider (`409 provider-mismatch`); an archived child cannot be attached again (`409 invalid-transition`).",
      request: { params: RefParam, body: { content: { 'application/json': { schema: RuntimeChildBody } }, required: true } },
      responses: {
        201: ok(z.object({ session: SessionSchema, created: z.literal(true) }), 'the child was created'),
        200: ok(z.object({ session: SessionSchema, created: z.literal(false) }), 'the child existed: attached again (or already running)'),
        ...errors,
        409: err('provider-mismatch, or invalid-transition (the existing child cannot be attached again)'),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const r = await createRuntimeChild(ctx, c.get('caller'), c.req.valid('param').ref, {
        origin: body.origin,
        provider: body.provider,
        conversationId: body.conversation_id,
        agentRoot: body.agent_root ?? null,
        transcriptPath: body.transcript_path ?? null,
      });
      if (r.created) return json(c, { session: serializeSession(r.session), created: true as const }, 201);
      return json(c, { session: serializeSession(r.session), created: false as const }, 200);
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/transcript',
      operationId: 'appendTranscript',
      summary: "The runtime appends what the provider's transcript file gained, from a byte offset",
      description:
        "The session's own token, the token of the runtime that created it (`POST …/children`), fleet supervisors or admins. `offset` must equal the server's next offset for (session, provider, conversation_id) — `GET …/transcript/position` — else `409 transcript-offset-mismatch` with `expected_offset` and nothing stored; of two appends naming the same offset exactly one lands. `restarted: true` with `offset: 0` starts the conversation's file over (truncated or rotated; the first record says so). Each line is stored exactly as written with its conversation and byte offset; the audit log gets a keyed digest only. `413 transcript-chunk-too-large` over 1 MiB of the file or 16,384 lines; `409 transcripts-off` when the `transcripts` setting is off (nothing stored); `409 provider-mismatch` for another provider than the session's.",
      request: { params: RefParam, body: { content: { 'application/json': { schema: TranscriptBody } }, required: true } },
      responses: {
        200: ok(TranscriptAppendResponse, 'appended'),
        ...errors,
        409: err('transcript-offset-mismatch (with expected_offset), transcripts-off or provider-mismatch; nothing stored'),
        413: err('transcript-chunk-too-large'),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const r = await appendTranscript(ctx, c.get('caller'), c.req.valid('param').ref, {
        provider: body.provider,
        conversationId: body.conversation_id,
        offset: body.offset,
        lines: body.lines,
        restarted: body.restarted,
      });
      return json(c, { appended: r.appended, next_offset: r.nextOffset });
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/transcript/position',
      operationId: 'getTranscriptPosition',
      summary: 'Where the next transcript append for a conversation must start',
      request: { params: RefParam, query: TranscriptPositionQuery },
      responses: { 200: ok(TranscriptPositionResponse, 'the next offset (0 when nothing was appended)'), ...errors },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const r = await readTranscriptPosition(ctx, c.get('caller'), c.req.valid('param').ref, { provider: q.provider, conversationId: q.conversation_id });
      return json(c, {
        session_id: r.sessionId,
        provider: r.provider,
        conversation_id: r.conversationId,
        next_offset: r.nextOffset,
        transcripts: r.enabled ? ('on' as const) : ('off' as const),
      });
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/transcript',
      operationId: 'readTranscript',
      summary: 'Read transcript records, oldest first (each with its conversation and byte offset)',
      request: { params: RefParam, query: PageQuery },
      responses: { 200: ok(z.object({ records: z.array(TranscriptRecordSchema), next_cursor: z.string().nullable() }), 'a page of records'), ...errors },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const r = await readTranscript(ctx, c.get('caller'), c.req.valid('param').ref, {
        ...(q.cursor ? { cursor: q.cursor } : {}),
        ...(q.limit ? { limit: q.limit } : {}),
      });
      return json(c, { records: r.records.map(serializeTranscriptRecord), next_cursor: r.nextCursor });
    },
  );
}
