import { authorize } from '../access.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { openInboxDepth, pingStore } from '../../store/node-status-repo.js';

/** Whether this node's store answers (GET /api/v1/health): never throws. */
export async function storeReachable(ctx: AppContext): Promise<boolean> {
  try {
    await pingStore(ctx.store.kysely);
    return true;
  } catch {
    return false;
  }
}

/** What /metrics reads from the store, for the fleet key or an admin only; the probe's latency in seconds. */
export async function metricsReadings(ctx: AppContext, caller: Caller): Promise<{ inboxDepth: number; storeSeconds: number }> {
  await authorize(ctx.store.kysely, ctx, caller, 'metrics', null);
  const start = performance.now();
  const inboxDepth = await openInboxDepth(ctx.store.kysely);
  await pingStore(ctx.store.kysely);
  return { inboxDepth, storeSeconds: (performance.now() - start) / 1000 };
}
