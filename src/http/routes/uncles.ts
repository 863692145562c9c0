import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { removeUncleEdge } from '../../app/lineage/index.js';
import { noContent, route, type HttpEnv } from '../env.js';
import { UncleLinkParams } from '../inbox-schemas.js';
import { ErrorSchema } from '../schemas.js';

/** docs/concepts.md: exactly one edge, named by direction. */
export function registerUncleRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'delete',
      path: '/api/v1/sessions/{junior}/uncle_links/{uncle}',
      operationId: 'removeUncleLink',
      summary: 'Remove one uncle edge (uncle → junior)',
      description:
        'Fleet, humans (their own sessions) and admins; never a session token. `404 uncle-link-not-found` when no such edge exists; `404 uncle-link-reversed` when only the opposite edge exists (its direction is named; it is never deleted). Logged into both timelines.',
      request: { params: UncleLinkParams, query: z.object({ acting_session_id: z.string().max(200).optional() }) },
      responses: {
        204: { description: 'removed' },
        400: { description: 'invalid input', content: { 'application/json': { schema: ErrorSchema } } },
        401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
        403: { description: 'not allowed', content: { 'application/json': { schema: ErrorSchema } } },
        404: { description: 'uncle-link-not-found, uncle-link-reversed, or no such session', content: { 'application/json': { schema: ErrorSchema } } },
      },
    }),
    async (c) => {
      const { junior, uncle } = c.req.valid('param');
      await removeUncleEdge(ctx, c.get('caller'), junior, uncle, { actingSessionId: c.req.valid('query').acting_session_id ?? null });
      return noContent(c);
    },
  );
}
