import type { AppContext } from './context.js';
import { pruneIdempotencyKeys } from '../store/idempotency-repo.js';
import { lapseLeases } from './inbox/runtime-inbox.js';
import { settleUndeliveredWrites } from './inbox/agent-delivery.js';
import { periodicCheckpoint } from './checkpoints.js';
import { autoArchiveIdleSessions, deleteLongArchivedSessions } from './retention.js';
import { expireMessages } from './messages/message-settlement.js';
import { reclaimMessagePayloads } from './messages/message-retention.js';

/** Background work off the request path: bounded backlogs, expired keys. */
type HousekeepingTask = (ctx: AppContext) => Promise<void>;

export const housekeepingTasks: readonly HousekeepingTask[] = [
  async (ctx) => ctx.live.prune(),
  async (ctx) => {
    // Idempotency keys are kept 24 hours (docs/concepts.md).
    const cutoff = new Date(ctx.clock.now().getTime() - 24 * 3600_000).toISOString();
    await pruneIdempotencyKeys(ctx.store.kysely, cutoff);
  },
  // docs/messages.md: a lease that lapses returns its items to pending
  async (ctx) => {
    await lapseLeases(ctx);
  },
  // a write into an agent that no prompt report matched within the lease is recorded undelivered
  async (ctx) => void (await settleUndeliveredWrites(ctx)),
  // docs/attribution.md housekeeping acts (system as actor and cause), each off unless its setting is set
  async (ctx) => void (await autoArchiveIdleSessions(ctx)),
  async (ctx) => void (await deleteLongArchivedSessions(ctx)),
  // docs/messages.md: agent messages past their deadline expire; payloads past retention or capacity are reclaimed
  async (ctx) => void (await expireMessages(ctx)),
  async (ctx) => void (await reclaimMessagePayloads(ctx)),
  // docs/attribution.md: signed checkpoints, when a checkpoint key is set
  async (ctx) => void (await periodicCheckpoint(ctx)),
];

/**
 * Runs the tasks every `intervalMs`, one pass at a time. The returned stop waits for a pass
 * in progress (its remaining tasks skipped), so the store can be closed after it.
 */
export function startHousekeeping(ctx: AppContext, intervalMs = 30_000): () => Promise<void> {
  let pass: Promise<void> | null = null;
  let stopped = false;
  const timer = setInterval(() => {
    if (pass) return;
    pass = (async () => {
      for (const task of housekeepingTasks) {
        if (stopped) return;
        try {
          await task(ctx);
        } catch (error) {
          ctx.logger.warn({ err: error }, 'housekeeping task failed');
        }
      }
    })().finally(() => (pass = null));
  }, intervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await pass;
  };
}
