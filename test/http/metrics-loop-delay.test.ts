import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLoopLateness, type LoopDelaySamples } from '../../src/http/loop-delay.js';
import { openHarness, type Harness } from '../helpers/harness.js';

/** docs/operations.md "Metrics": the event loop's lateness, quantiles per scrape, totals cumulative. */

function parse(text: string): { p50: number; p99: number; max: number; sum: number; count: number } {
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1]);
  return {
    p50: value(/^warrant_event_loop_delay_seconds\{quantile="0.5"\} (\S+)$/m),
    p99: value(/^warrant_event_loop_delay_seconds\{quantile="0.99"\} (\S+)$/m),
    max: value(/^warrant_event_loop_delay_seconds\{quantile="1"\} (\S+)$/m),
    sum: value(/^warrant_event_loop_delay_seconds_sum (\S+)$/m),
    count: value(/^warrant_event_loop_delay_seconds_count (\d+)$/m),
  };
}

/** Samples as Node's histogram holds them: ns between the 10 ms timer's runs. */
class RecordedSamples implements LoopDelaySamples {
  private values: number[] = [];
  resets = 0;
  record(...ms: number[]): void {
    this.values.push(...ms.map((v) => v * 1e6));
  }
  get count(): number {
    return this.values.length;
  }
  get mean(): number {
    return this.values.reduce((a, b) => a + b, 0) / this.values.length;
  }
  get max(): number {
    return Math.max(...this.values);
  }
  percentile(p: number): number {
    const sorted = [...this.values].sort((a, b) => a - b);
    return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
  }
  reset(): void {
    this.values = [];
    this.resets++;
  }
}

describe('the summary', () => {
  it('reports lateness (the interval taken off), quantiles per window, sum and count cumulative', () => {
    const samples = new RecordedSamples();
    const lateness = new EventLoopLateness(samples, 10);
    samples.record(10, 10, 10, 160); // on time three times, then 150 ms late
    const first = parse(lateness.render().join('\n'));
    expect(first).toMatchObject({ p50: 0, max: 0.15, count: 4 });
    expect(first.sum).toBeCloseTo(0.15, 9);
    expect(samples.resets).toBe(1);
    samples.record(12, 14); // 2 and 4 ms late
    const second = parse(lateness.render().join('\n'));
    expect(second.max, 'the stall belongs to the window before').toBeCloseTo(0.004, 9);
    expect(second.p50).toBeCloseTo(0.002, 9);
    expect(second.count, 'a summary count never goes down').toBe(6);
    expect(second.sum).toBeCloseTo(0.156, 9);
    // an empty window: no quantiles, totals kept
    const third = parse(lateness.render().join('\n'));
    expect(Number.isNaN(third.p50) && Number.isNaN(third.max)).toBe(true);
    expect(third.count).toBe(6);
    expect(third.sum).toBeCloseTo(0.156, 9);
  });
});

describe('GET /metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness('sqlite');
  });
  afterAll(async () => {
    await h.close();
  });

  async function scrape(): Promise<ReturnType<typeof parse>> {
    const r = await h.request('GET', '/metrics', { token: h.fleetKey });
    expect(r.status).toBe(200);
    expect(r.text).toContain('# TYPE warrant_event_loop_delay_seconds summary');
    return parse(r.text);
  }

  function blockTheLoop(ms: number): void {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // a synchronous stall, as a long statement on the one SQLite connection would be
    }
  }

  it('shows a stalled event loop in the next scrape, with a count that only grows', async () => {
    const before = await scrape();
    await sleep(50);
    blockTheLoop(150);
    await sleep(50); // the late timer is recorded once the loop runs again
    const stalled = await scrape();
    expect(stalled.count).toBeGreaterThan(before.count);
    // the timer due during the stall ran at least 150 ms less one sampling interval late
    expect(stalled.max).toBeGreaterThanOrEqual(0.14);
    expect(stalled.p99).toBeLessThanOrEqual(stalled.max);
    expect(stalled.sum).toBeGreaterThanOrEqual(before.sum + 0.14);
    await sleep(50);
    const after = await scrape();
    expect(after.count).toBeGreaterThan(stalled.count);
    expect(after.sum).toBeGreaterThanOrEqual(stalled.sum);
  });
});
