import type { Logger } from 'pino';
import type { StoreDialect } from '../store/dialect/dialect.js';
import { liveEventsAfter, oldestAndNewestLiveEventId, pruneLiveEvents, type LiveEventRecord } from '../store/live-repo.js';

type LiveListener = (event: LiveEventRecord) => void;

/** How many live events the store keeps for replay; beyond it a reconnect gets `resync`. */
const LIVE_BACKLOG = 10_000;

/**
 * Fans committed live events out to this node's subscribers, off the request path: a write
 * wakes the hub after commit (or another node wakes it through NOTIFY), and the hub reads
 * what is new from the store once, for every subscriber.
 */
/** The channel a write's wake-up (its last live-event id) goes to, across nodes. */
export const LIVE_CHANNEL = 'warrant_live';

export class LiveHub {
  private lastId = 0;
  private readonly listeners = new Set<LiveListener>();
  private reading: Promise<void> | null = null;
  private again = false;
  private unlisten: (() => Promise<void>) | null = null;
  private started = false;
  /** open live streams, each with the function that asks it to end (shutdown) */
  private readonly streams = new Set<() => void>();
  private streamsEnding = false;
  private streamsGone: (() => void)[] = [];

  constructor(
    private readonly store: StoreDialect,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.lastId = (await oldestAndNewestLiveEventId(this.store.kysely)).newest;
    if (this.store.capabilities.crossNodeNotify) {
      this.unlisten = await this.store.listen(LIVE_CHANNEL, () => this.wake());
    }
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.unlisten?.();
    this.unlisten = null;
    await this.reading;
  }

  get lastEventId(): number {
    return this.lastId;
  }

  subscribe(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /**
   * Registers an open live stream with the function that asks it to end; returns its release,
   * called once the stream has stopped touching the store. A stream opened while the node
   * shuts down is asked to end at once.
   */
  holdStream(end: () => void): () => void {
    this.streams.add(end);
    if (this.streamsEnding) end();
    return () => {
      this.streams.delete(end);
      if (this.streams.size === 0) for (const resolve of this.streamsGone.splice(0)) resolve();
    };
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /** Shutdown: asks every open stream to end; resolves once all have released. */
  endStreams(): Promise<void> {
    this.streamsEnding = true;
    for (const end of this.streams) end();
    if (this.streams.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.streamsGone.push(resolve));
  }

  /** Coalesces wake-ups: at most one read in flight, and one more after it if woken meanwhile. */
  wake(): void {
    if (!this.started) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.drain().finally(() => {
      this.reading = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Resolves once everything committed so far has been dispatched (tests, shutdown). */
  async settle(): Promise<void> {
    this.wake();
    while (this.reading) await this.reading;
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const batch = await liveEventsAfter(this.store.kysely, this.lastId, 500);
        if (batch.length === 0) break;
        for (const event of batch) {
          this.lastId = event.id;
          for (const listener of this.listeners) {
            try {
              listener(event);
            } catch (error) {
              this.logger.warn({ err: error }, 'live listener failed');
            }
          }
        }
        if (batch.length < 500) break;
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'reading live events failed');
    }
  }

  /** Events after `afterId` for a reconnecting client, or `resync` when they were pruned. */
  async replay(afterId: number): Promise<{ resync: boolean; events: LiveEventRecord[] }> {
    const { oldest, newest } = await oldestAndNewestLiveEventId(this.store.kysely);
    if (afterId >= newest) return { resync: false, events: [] };
    if (oldest === null || afterId < oldest - 1) return { resync: true, events: [] };
    const events: LiveEventRecord[] = [];
    let cursor = afterId;
    for (;;) {
      const batch = await liveEventsAfter(this.store.kysely, cursor, 1000);
      events.push(...batch);
      if (batch.length < 1000) break;
      cursor = batch[batch.length - 1]!.id;
    }
    return { resync: false, events };
  }

  /** Housekeeping: keep the backlog bounded. */
  async prune(): Promise<void> {
    const { newest } = await oldestAndNewestLiveEventId(this.store.kysely);
    if (newest > LIVE_BACKLOG) await pruneLiveEvents(this.store.kysely, newest - LIVE_BACKLOG);
  }
}

export type { LiveEventRecord };
