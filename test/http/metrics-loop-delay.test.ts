import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness.js';

/** docs/operations.md "Metrics": the event loop's lateness since the last scrape. */
let h: Harness;
beforeAll(async () => {
  h = await openHarness('sqlite');
});
afterAll(async () => {
  await h.close();
});

async function loopDelay(): Promise<{ p50: number; max: number; p99: number; count: number }> {
  const r = await h.request('GET', '/metrics', { token: h.fleetKey });
  expect(r.status).toBe(200);
  const value = (pattern: RegExp) => Number(pattern.exec(r.text)?.[1]);
  expect(r.text).toContain('# TYPE warrant_event_loop_delay_seconds summary');
  return {
    p50: value(/^warrant_event_loop_delay_seconds\{quantile="0.5"\} (\S+)$/m),
    max: value(/^warrant_event_loop_delay_seconds\{quantile="1"\} (\S+)$/m),
    p99: value(/^warrant_event_loop_delay_seconds\{quantile="0.99"\} (\S+)$/m),
    count: value(/^warrant_event_loop_delay_seconds_count (\d+)$/m),
  };
}

function blockTheLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // a synchronous stall, as a long statement on the one SQLite connection would be
  }
}

it('a stalled event loop shows in the next scrape, and only in that one', async () => {
  await loopDelay(); // starts a fresh window
  await sleep(50);
  blockTheLoop(150);
  await sleep(50); // the late timer is recorded once the loop runs again
  const stalled = await loopDelay();
  expect(stalled.count).toBeGreaterThan(0);
  // the timer due during the stall ran at least 150 ms less one sampling interval late
  expect(stalled.max).toBeGreaterThanOrEqual(0.12);
  expect(stalled.p99).toBeLessThanOrEqual(stalled.max);
  await sleep(200);
  const after = await loopDelay();
  expect(after.count).toBeGreaterThan(0);
  expect(after.max, 'the window was reset by the scrape before').toBeLessThan(0.12);
  // lateness, not the time between the sampling timer's runs (which is never under its 10 ms interval)
  expect(after.p50, 'an idle loop is on time').toBeLessThan(0.008);
});
