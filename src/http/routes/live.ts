import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Caller } from '../../app/caller.js';
import { isVisible, visibilityOf } from '../../app/access.js';
import type { AppContext } from '../../app/context.js';
import type { LiveEventRecord } from '../../store/live-repo.js';
import type { HttpEnv } from '../env.js';

const KEEPALIVE_MS = 15_000;

/**
 * `GET /api/v1/events/stream` (spec 06): live events filtered per subscriber by visibility;
 * a reconnect with `Last-Event-ID` replays what it missed, or gets `resync` beyond the backlog.
 */
export function registerLiveRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  app.get('/api/v1/events/stream', (c) => streamLiveEvents(c, ctx, c.get('caller')));
}

/**
 * One subscriber's stream: the REST route above and the web UI's cookie-authenticated
 * stream (src/web) both serve it, so visibility filtering and replay live in one place.
 */
export async function streamLiveEvents(c: Context, ctx: AppContext, caller: Caller): Promise<Response> {
  const visibility = await visibilityOf(ctx.store.kysely, ctx, caller);
  const lastEventId = Number(c.req.header('last-event-id') ?? c.req.query('last_event_id') ?? NaN);
  const visible = (e: LiveEventRecord): boolean => e.sessionId === null || isVisible(visibility, e.ownerUserId);

  return streamSSE(c, async (stream) => {
    const queue: LiveEventRecord[] = [];
    let wake: (() => void) | null = null;
    let lastSent = Number.isFinite(lastEventId) ? lastEventId : ctx.live.lastEventId;
    // Subscribe before replaying so nothing committed in between is lost; dedupe by id.
    const unsubscribe = ctx.live.subscribe((e) => {
      queue.push(e);
      wake?.();
    });
    stream.onAbort(() => {
      unsubscribe();
      wake?.();
    });
    try {
      if (Number.isFinite(lastEventId)) {
        const replay = await ctx.live.replay(lastEventId);
        if (replay.resync) {
          await stream.writeSSE({ event: 'resync', data: JSON.stringify({ reason: 'the backlog no longer holds events after this id; reload your state' }), id: String(ctx.live.lastEventId) });
          lastSent = Math.max(lastSent, ctx.live.lastEventId);
        }
        for (const e of replay.events) {
          if (e.id <= lastSent && replay.resync) continue;
          if (visible(e)) await stream.writeSSE({ event: e.type, data: JSON.stringify(e.payload), id: String(e.id) });
          lastSent = Math.max(lastSent, e.id);
        }
      }
      await stream.writeSSE({ event: 'ready', data: JSON.stringify({ last_event_id: lastSent }) });
      while (!stream.aborted) {
        while (queue.length > 0) {
          const e = queue.shift()!;
          if (e.id <= lastSent) continue;
          lastSent = e.id;
          if (visible(e)) await stream.writeSSE({ event: e.type, data: JSON.stringify(e.payload), id: String(e.id) });
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, KEEPALIVE_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
        if (queue.length === 0 && !stream.aborted) await stream.write(': keep-alive\n\n');
      }
    } finally {
      unsubscribe();
    }
  });
}
