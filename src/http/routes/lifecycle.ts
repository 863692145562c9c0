import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { archiveSession, attachSession, changeLifecycle, reportRuntime, type RuntimeReport } from '../../app/sessions/index.js';
import { serializeSession } from '../../render/session-json.js';
import { json, route, type HttpEnv } from '../env.js';
import { ActingBody, AttachBody, ErrorSchema, RefParam, RuntimeBody, SessionSchema } from '../schemas.js';

const errors = {
  400: { description: 'invalid input', content: { 'application/json': { schema: ErrorSchema } } },
  401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
  403: { description: 'not allowed', content: { 'application/json': { schema: ErrorSchema } } },
  404: { description: 'no such session', content: { 'application/json': { schema: ErrorSchema } } },
  409: { description: 'invalid transition', content: { 'application/json': { schema: ErrorSchema } } },
};
const actingBody = { content: { 'application/json': { schema: ActingBody } }, required: false };
const sessionResult = {
  description: 'the session; `changed` is false when the act had no effect and recorded nothing',
  content: { 'application/json': { schema: z.object({ session: SessionSchema, changed: z.boolean() }) } },
};

export function registerLifecycleRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  for (const act of ['resume', 'unarchive', 'stop'] as const) {
    route(
      app,
      createRoute({
        method: 'post',
        path: `/api/v1/sessions/{ref}/${act}`,
        operationId: `${act}Session`,
        summary: `${act[0]!.toUpperCase()}${act.slice(1)} a session`,
        request: { params: RefParam, body: actingBody },
        responses: { 200: sessionResult, ...errors },
      }),
      async (c) => {
        const r = await changeLifecycle(ctx, c.get('caller'), c.req.valid('param').ref, act, c.req.valid('json').acting_session_id ?? null);
        return json(c, { session: serializeSession(r.session), changed: r.changed });
      },
    );
  }

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/archive',
      operationId: 'archiveSession',
      summary: 'Archive a session and, bottom-up, its spawn subtree (active sessions are skipped)',
      request: { params: RefParam, body: actingBody },
      responses: {
        200: {
          description: 'what was archived and what was skipped',
          content: {
            'application/json': {
              schema: z.object({
                archived: z.array(z.number().int()),
                skipped: z.array(z.object({ id: z.number().int(), reason: z.enum(['active', 'active-descendant']) })),
              }),
            },
          },
        },
        ...errors,
      },
    }),
    async (c) => json(c, await archiveSession(ctx, c.get('caller'), c.req.valid('param').ref, c.req.valid('json').acting_session_id ?? null)),
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/attach',
      operationId: 'attachSession',
      summary: 'A runtime takes the session: a new session token; earlier tokens are superseded',
      description:
        'The body is optional. `runner.tty: true` says the runner had a terminal on standard input: the hierarchy then has an agent-terminal capture gap for this activation (see RunnerFacts). A stop requested of an earlier runtime is retired (never acted on by this one). `delivery: "runner"`: this activation\'s runner writes inbox items into its agent (`…/inbox/written`, `…/prompts`), so MCP `read_inbox` lists without leasing.',
      request: { params: RefParam, body: { content: { 'application/json': { schema: AttachBody } }, required: false } },
      responses: {
        200: {
          description: 'the session and its new token',
          content: { 'application/json': { schema: z.object({ session: SessionSchema, session_token: z.string() }) } },
        },
        ...errors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      const r = await attachSession(ctx, c.get('caller'), c.req.valid('param').ref, {
        runner: body.runner ? { tty: body.runner.tty } : null,
        delivery: body.delivery,
      });
      return json(c, { session: serializeSession(r.session), session_token: r.sessionToken });
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/runtime',
      operationId: 'reportSessionRuntime',
      summary: 'Runner-reported state: started, idle, exited (with code), error',
      description:
        "The session's own token, the token of the runtime that created it as a subagent or nested-agent session (`POST …/children`; the event's details carry `runtime_parent_id`), fleet supervisors or admins. Runtime state events are unattributed.",
      request: { params: RefParam, body: { content: { 'application/json': { schema: RuntimeBody } }, required: true } },
      responses: { 200: sessionResult, ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const report: RuntimeReport =
        body.state === 'exited'
          ? { state: 'exited', code: body.code }
          : body.state === 'error'
            ? { state: 'error', reason: body.reason ?? null }
            : { state: body.state };
      const r = await reportRuntime(ctx, c.get('caller'), c.req.valid('param').ref, report);
      return json(c, { session: serializeSession(r.session), changed: r.changed });
    },
  );
}
