import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { restCaller, type HttpEnv } from '../env.js';
import type { Metrics } from '../metrics.js';
import { metricsReadings } from '../../app/operations/index.js';
import { walkCounts } from '../../app/lineage/index.js';
import { ErrorSchema } from '../schemas.js';

/** Documented, not validated (it takes no input): Prometheus' text exposition format. */
const METRICS_ROUTE = createRoute({
  method: 'get',
  path: '/metrics',
  operationId: 'getMetrics',
  summary: 'Prometheus metrics of this node (the fleet key or an admin)',
  description:
    "Prometheus' text exposition format (0.0.4): request counts and latencies, live-stream clients, inbox depth, " +
    'store latency and the newest live event id (docs/operations.md).',
  responses: {
    200: {
      description: 'the metrics',
      content: { 'text/plain': { schema: z.string().openapi({ example: '# TYPE warrant_sse_clients gauge\nwarrant_sse_clients 2\n' }) } },
    },
    403: { description: 'forbidden: metrics need the fleet key or an admin', content: { 'application/json': { schema: ErrorSchema } } },
  },
});

/** `GET /metrics`: Prometheus text; the fleet key or an admin (docs/concepts.md). */
export function registerMetricsRoute(app: OpenAPIHono<HttpEnv>, ctx: AppContext, metrics: Metrics): void {
  app.openAPIRegistry.registerPath(METRICS_ROUTE);
  app.get('/metrics', async (c) => {
    const caller = await restCaller(ctx, c);
    const { inboxDepth, storeSeconds } = await metricsReadings(ctx, caller);
    metrics.storeLatency.observe(storeSeconds);
    return c.text(
      metrics.render({ sseClients: ctx.live.subscriberCount, inboxDepth, liveEventId: ctx.live.lastEventId, hierarchyWalks: walkCounts.total }),
      200,
      {
        'content-type': 'text/plain; version=0.0.4; charset=utf-8',
      },
    );
  });
}
