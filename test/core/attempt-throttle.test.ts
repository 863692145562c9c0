import { describe, expect, it } from 'vitest';
import { AttemptThrottle } from '../../src/core/attempt-throttle.js';

describe('AttemptThrottle', () => {
  it('refuses after the limit within the window, until the oldest failure ages out', () => {
    const t = new AttemptThrottle(3, 1000);
    t.fail('k', 0);
    t.fail('k', 100);
    expect(t.retryAfterMs('k', 200)).toBe(0);
    t.fail('k', 200);
    expect(t.retryAfterMs('k', 300)).toBe(700); // the failure at 0 ages out at 1000
    expect(t.retryAfterMs('k', 1000)).toBe(0);
    expect(t.retryAfterMs('other', 300)).toBe(0);
  });

  it('a success clears the key; failures outside the window do not count', () => {
    const t = new AttemptThrottle(2, 1000);
    t.fail('k', 0);
    t.fail('k', 10);
    expect(t.retryAfterMs('k', 20)).toBeGreaterThan(0);
    t.succeed('k');
    expect(t.retryAfterMs('k', 20)).toBe(0);
    t.fail('k', 0);
    t.fail('k', 5000);
    expect(t.retryAfterMs('k', 5001)).toBe(0);
  });
});
