import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Caller } from '../../app/kernel.js';
import { isVisible, visibilityOf } from '../../app/kernel.js';
import type { AppContext } from '../../app/kernel.js';
import { HIERARCHY_CHANGED, INTERNAL_LIVE_TYPES, type HierarchySubscription } from '../../app/lineage/index.js';
import { WarrantError } from '../../core/errors.js';
import type { LiveEventRecord } from '../../app/kernel.js';
import type { HttpEnv } from '../env.js';
import { LIVE_STREAM_ROUTE } from '../live-schemas.js';
import { changedSessionsFrame, liveEventFrame, sseFrame, watchedHierarchyFrame } from '../sse-frames.js';
import { sseResponse, type SseSink } from '../sse-sink.js';

const KEEPALIVE_MS = 15_000;
/**
 * Frames one stream may have waiting to be written. A reader this far behind has stopped
 * reading: its stream is cut rather than buffered for (what it missed stays in the store's
 * backlog, and an EventSource reconnects with Last-Event-ID and gets it replayed).
 */
export const MAX_QUEUED_FRAMES = 1_000;
/** how many hierarchies one stream may watch */
const MAX_WATCHED_HIERARCHIES = 20;

/** A frame for the stream: a stored live event (sent with its id), or a derived one's bytes (without); held bare, a queue slot is all a waiting frame costs. */
type Frame = LiveEventRecord | Uint8Array;

const KEEPALIVE = new TextEncoder().encode(': keep-alive\n\n');

/**
 * `GET /api/v1/events/stream` (docs/api.md): live events filtered per subscriber by visibility;
 * a reconnect with `Last-Event-ID` replays what it missed, or gets `resync` beyond the backlog.
 *
 * `hierarchy_changed` is derived from the stored events by each node, off the request path,
 * and carries no id (it is recomputed, not replayed: after a reconnect, refetch the views):
 * - by default `{session_ids}`: the sessions whose hierarchy view changed, those the
 *   subscriber may see;
 * - with `?hierarchy=<ref>` (repeatable, or comma-separated, up to 20) the stream watches
 *   those sessions' hierarchies instead: `{session_ids: [id], session_hierarchy}` each time
 *   one of those views really changed, computed once per change for every watcher.
 */
export function registerLiveRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  // documented, not validated: the stream reads its own query and header (src/http/live-schemas.ts)
  app.openAPIRegistry.registerPath(LIVE_STREAM_ROUTE);
  app.get('/api/v1/events/stream', (c) => streamLiveEvents(c, ctx, c.get('caller')));
}

interface LiveStreamOptions {
  /**
   * More frames a surface derives for this subscriber (the web UI's live panels): called once
   * the stream is set up with a `push` for `{event, data}` frames (sent without an id); returns
   * the cleanup run when the stream ends.
   */
  derived?: (push: (event: string, data: string) => void) => Promise<() => void>;
}

/**
 * One subscriber's stream: the REST route above and the web UI's cookie-authenticated
 * stream (src/web) both serve it, so visibility filtering, replay and hierarchy watching
 * live in one place.
 */
export async function streamLiveEvents(c: Context, ctx: AppContext, caller: Caller, options: LiveStreamOptions = {}): Promise<Response> {
  const visibility = await visibilityOf(ctx.store.kysely, ctx, caller);
  const lastEventId = Number(c.req.header('last-event-id') ?? c.req.query('last_event_id') ?? NaN);
  const visible = (e: LiveEventRecord): boolean => e.sessionId === null || isVisible(visibility, e.ownerUserId);
  const watched = (c.req.queries('hierarchy') ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (watched.length > MAX_WATCHED_HIERARCHIES) {
    throw new WarrantError('invalid-request', `hierarchy: at most ${MAX_WATCHED_HIERARCHIES} sessions per stream.`, { details: { field: 'hierarchy' } });
  }

  const queue: Frame[] = [];
  let wake: (() => void) | null = null;
  let overflowed = false;
  let cutStream: (() => void) | null = null;
  const push = (frame: Frame): void => {
    if (overflowed) return;
    if (queue.length >= MAX_QUEUED_FRAMES) {
      overflowed = true;
      queue.length = 0;
      ctx.logger.info({ queued: MAX_QUEUED_FRAMES }, 'live stream cut: its reader fell behind by the most frames a stream may hold');
      cutStream?.();
      wake?.();
      return;
    }
    queue.push(frame);
    wake?.();
  };
  // Subscribe before replaying so nothing committed in between is lost; dedupe by id.
  const subscriptions: HierarchySubscription[] = [];
  const cleanups: (() => void)[] = [];
  try {
    for (const ref of watched) {
      // the refresher resolves each ref as this caller: an invisible one is a 404 like any other
      subscriptions.push(await ctx.hierarchies.subscribe(ref, caller, (u) => push(watchedHierarchyFrame(HIERARCHY_CHANGED, u.viewerId, u.hierarchy))));
    }
  } catch (error) {
    for (const s of subscriptions) s.unsubscribe();
    throw error;
  }
  cleanups.push(...subscriptions.map((s) => () => s.unsubscribe()));
  if (watched.length === 0) {
    cleanups.push(
      ctx.hierarchies.onChange((change) => {
        const ids = change.sessionIds.filter((id) => isVisible(visibility, change.owners.get(id) ?? null));
        if (ids.length > 0) push(changedSessionsFrame(HIERARCHY_CHANGED, change, ids));
      }),
    );
  }
  cleanups.push(ctx.live.subscribe(push));
  if (options.derived) {
    try {
      cleanups.push(await options.derived((event, data) => push(sseFrame(event, data))));
    } catch (error) {
      for (const cleanup of cleanups.splice(0)) cleanup();
      throw error;
    }
  }
  const unsubscribe = (): void => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  };

  const run = async (stream: SseSink): Promise<void> => {
    cutStream = () => stream.cut();
    let lastSent = Number.isFinite(lastEventId) ? lastEventId : ctx.live.lastEventId;
    const writeLive = async (e: LiveEventRecord): Promise<void> => {
      // internal wake-ups are not part of the stream (they only trigger hierarchy_changed)
      if (visible(e) && !INTERNAL_LIVE_TYPES.has(e.type)) await stream.write(liveEventFrame(e));
    };
    stream.onAbort(() => {
      unsubscribe();
      wake?.();
    });
    // at shutdown the node ends every live stream (docs/operations.md); the client reconnects elsewhere
    let ending = false;
    const release = ctx.live.holdStream(() => {
      ending = true;
      wake?.();
    });
    // one timer per stream, not one per wake-up: a stream with nothing to send for a whole
    // period gets a comment line (15–30 s of quiet), so proxies keep the connection
    let keepAliveDue = false;
    let sentInPeriod = false;
    const keepAlive = setInterval(() => {
      if (sentInPeriod) sentInPeriod = false;
      else {
        keepAliveDue = true;
        wake?.();
      }
    }, KEEPALIVE_MS);
    try {
      if (Number.isFinite(lastEventId)) {
        const replay = await ctx.live.replay(lastEventId);
        if (replay.resync) {
          await stream.write(
            sseFrame('resync', JSON.stringify({ reason: 'the backlog no longer holds events after this id; reload your state' }), String(ctx.live.lastEventId)),
          );
          lastSent = Math.max(lastSent, ctx.live.lastEventId);
        }
        for (const e of replay.events) {
          if (e.id <= lastSent && replay.resync) continue;
          await writeLive(e);
          lastSent = Math.max(lastSent, e.id);
        }
      }
      await stream.write(sseFrame('ready', JSON.stringify({ last_event_id: lastSent })));
      while (!stream.aborted && !ending && !overflowed) {
        while (queue.length > 0) {
          sentInPeriod = true;
          const frame = queue.shift()!;
          if (frame instanceof Uint8Array) {
            await stream.write(frame);
            continue;
          }
          if (frame.id <= lastSent) continue;
          lastSent = frame.id;
          await writeLive(frame);
        }
        if (keepAliveDue) {
          keepAliveDue = false;
          await stream.write(KEEPALIVE);
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      clearInterval(keepAlive);
      unsubscribe();
      release();
    }
  };
  return sseResponse(c, run, (error) => ctx.logger.warn({ err: error }, 'live stream failed'));
}
