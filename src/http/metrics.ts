import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { processEventLoopLateness } from './loop-delay.js';

/**
 * Prometheus metrics (docs/api.md `/metrics`): request counts and latency per route, store
 * timings, SSE clients, inbox depth. Kept in memory per node; cheap to record.
 */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

class Histogram {
  readonly counts = new Array<number>(BUCKETS.length).fill(0);
  sum = 0;
  count = 0;
  observe(seconds: number): void {
    this.sum += seconds;
    this.count++;
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) this.counts[i]!++;
  }
}

export class Metrics {
  private readonly loopLateness = processEventLoopLateness();

  private readonly requests = new Map<string, number>();
  private readonly latency = new Map<string, Histogram>();
  readonly storeLatency = new Histogram();

  middleware(): MiddlewareHandler {
    return async (c, next) => {
      const start = performance.now();
      try {
        await next();
      } finally {
        const route = routePath(c) || 'unmatched';
        const key = `${c.req.method} ${route}`;
        const labels = `method="${c.req.method}",route="${escapeLabel(route)}",status="${c.res.status}"`;
        this.requests.set(labels, (this.requests.get(labels) ?? 0) + 1);
        let h = this.latency.get(key);
        if (!h) this.latency.set(key, (h = new Histogram()));
        h.observe((performance.now() - start) / 1000);
      }
    };
  }

  render(gauges: { sseClients: number; inboxDepth: number; liveEventId: number; hierarchyWalks: number }): string {
    const out: string[] = [];
    out.push('# HELP warrant_http_requests_total HTTP requests by route and status.', '# TYPE warrant_http_requests_total counter');
    for (const [labels, n] of this.requests) out.push(`warrant_http_requests_total{${labels}} ${n}`);
    out.push('# HELP warrant_http_request_duration_seconds HTTP request latency.', '# TYPE warrant_http_request_duration_seconds histogram');
    for (const [key, h] of this.latency) {
      const [method, route] = key.split(' ', 2) as [string, string];
      const base = `method="${method}",route="${escapeLabel(route)}"`;
      BUCKETS.forEach((b, i) => out.push(`warrant_http_request_duration_seconds_bucket{${base},le="${b}"} ${h.counts[i]}`));
      out.push(`warrant_http_request_duration_seconds_bucket{${base},le="+Inf"} ${h.count}`);
      out.push(`warrant_http_request_duration_seconds_sum{${base}} ${h.sum}`, `warrant_http_request_duration_seconds_count{${base}} ${h.count}`);
    }
    out.push('# HELP warrant_store_probe_seconds Latency of the store probe taken at each scrape.', '# TYPE warrant_store_probe_seconds histogram');
    BUCKETS.forEach((b, i) => out.push(`warrant_store_probe_seconds_bucket{le="${b}"} ${this.storeLatency.counts[i]}`));
    out.push(`warrant_store_probe_seconds_bucket{le="+Inf"} ${this.storeLatency.count}`);
    out.push(`warrant_store_probe_seconds_sum ${this.storeLatency.sum}`, `warrant_store_probe_seconds_count ${this.storeLatency.count}`);
    out.push(
      '# HELP warrant_sse_clients Open live-event streams on this node.',
      '# TYPE warrant_sse_clients gauge',
      `warrant_sse_clients ${gauges.sseClients}`,
    );
    out.push('# HELP warrant_inbox_depth Inbox items waiting for delivery.', '# TYPE warrant_inbox_depth gauge', `warrant_inbox_depth ${gauges.inboxDepth}`);
    out.push(
      '# HELP warrant_live_event_id The newest live event id this node has dispatched.',
      '# TYPE warrant_live_event_id gauge',
      `warrant_live_event_id ${gauges.liveEventId}`,
    );
    out.push(
      '# HELP warrant_hierarchy_walks_total Hierarchy walks run by this node (requests and live refresh).',
      '# TYPE warrant_hierarchy_walks_total counter',
    );
    out.push(`warrant_hierarchy_walks_total ${gauges.hierarchyWalks}`);
    out.push(...this.loopLateness.render());
    return out.join('\n') + '\n';
  }
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
