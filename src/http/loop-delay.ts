import { monitorEventLoopDelay } from 'node:perf_hooks';

/** How often the event loop's lateness is sampled, in ms: finer costs a timer wake-up each time. */
const LOOP_DELAY_RESOLUTION_MS = 10;

/** What a scrape reads of Node's loop-delay histogram (its times in ns, between the timer's runs). */
export interface LoopDelaySamples {
  readonly count: number;
  readonly mean: number;
  readonly max: number;
  percentile(p: number): number;
  reset(): void;
}

/**
 * The event loop's lateness as a Prometheus summary. Every request of a node waits out a stalled
 * loop (a long synchronous SQLite statement, a checkpoint, a GC pause), so its tail is where a
 * request latency p99 comes from that no route's own work explains. The quantiles are of the
 * samples since the last scrape (each scrape starts a new window); `_sum` and `_count` are
 * cumulative, as a summary's must be, so `rate()` over them is the mean lateness.
 */
export class EventLoopLateness {
  private totalCount = 0;
  private totalSeconds = 0;

  constructor(
    private readonly samples: LoopDelaySamples,
    private readonly intervalMs = LOOP_DELAY_RESOLUTION_MS,
  ) {}

  render(): string[] {
    const h = this.samples;
    // the histogram holds the time between the timer's runs; what a request waits is that less the interval
    const interval = this.intervalMs * 1e6;
    const late = (ns: number) => Math.max(0, ns - interval) / 1e9;
    const quantile = (ns: number) => (h.count === 0 ? 'NaN' : String(late(ns)));
    this.totalCount += h.count;
    this.totalSeconds += h.count === 0 ? 0 : late(h.mean) * h.count;
    const out = [
      '# HELP warrant_event_loop_delay_seconds How late the event loop ran its timer (quantiles since the last scrape; a stalled loop delays every request).',
      '# TYPE warrant_event_loop_delay_seconds summary',
      `warrant_event_loop_delay_seconds{quantile="0.5"} ${quantile(h.percentile(50))}`,
      `warrant_event_loop_delay_seconds{quantile="0.99"} ${quantile(h.percentile(99))}`,
      `warrant_event_loop_delay_seconds{quantile="1"} ${quantile(h.max)}`,
      `warrant_event_loop_delay_seconds_sum ${this.totalSeconds}`,
      `warrant_event_loop_delay_seconds_count ${this.totalCount}`,
    ];
    h.reset();
    return out;
  }
}

// One per process, as the event loop is: started by the first Metrics, never stopped (its timer
// does not keep the process alive), read and reset by each scrape.
let processLateness: EventLoopLateness | null = null;
export function processEventLoopLateness(): EventLoopLateness {
  if (!processLateness) {
    const histogram = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
    histogram.enable();
    processLateness = new EventLoopLateness(histogram);
  }
  return processLateness;
}
