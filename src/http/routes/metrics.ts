import type { OpenAPIHono } from '@hono/zod-openapi';
import { sql } from 'kysely';
import type { AppContext } from '../../app/kernel.js';
import { restCaller, type HttpEnv } from '../env.js';
import type { Metrics } from '../metrics.js';
import { WarrantError } from '../../core/errors.js';
import { permissionKind } from '../../app/kernel.js';

/** `GET /metrics`: Prometheus text; the fleet key or an admin (docs/concepts.md). */
export function registerMetricsRoute(app: OpenAPIHono<HttpEnv>, ctx: AppContext, metrics: Metrics): void {
  app.get('/metrics', async (c) => {
    const caller = await restCaller(ctx, c);
    const kind = permissionKind(caller);
    if (kind !== 'fleet' && kind !== 'admin') throw new WarrantError('forbidden', 'Metrics need the fleet key or an admin.');
    const start = performance.now();
    const row = await ctx.store.kysely
      .selectFrom('inbox_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', 'in', ['pending', 'leased'])
      .executeTakeFirstOrThrow();
    await sql`select 1`.execute(ctx.store.kysely);
    metrics.storeLatency.observe((performance.now() - start) / 1000);
    return c.text(metrics.render({ sseClients: ctx.live.subscriberCount, inboxDepth: Number(row.n), liveEventId: ctx.live.lastEventId }), 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    });
  });
}
