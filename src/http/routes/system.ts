import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { storeReachable } from '../../app/operations/index.js';
import type { AppContext } from '../../app/kernel.js';
import { json, route, type HttpEnv } from '../env.js';

export function registerSystemRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/health',
      operationId: 'getHealth',
      summary: 'Liveness and store reachability (no credential needed)',
      security: [],
      responses: {
        200: { description: 'healthy', content: { 'application/json': { schema: z.object({ status: z.literal('ok'), store: z.literal('ok') }) } } },
        503: { description: 'the store is unreachable', content: { 'application/json': { schema: z.object({ status: z.string(), store: z.string() }) } } },
      },
    }),
    async (c) => {
      if (await storeReachable(ctx)) return json(c, { status: 'ok', store: 'ok' } as const);
      return json(c, { status: 'degraded', store: 'unreachable' }, 503);
    },
  );
}
