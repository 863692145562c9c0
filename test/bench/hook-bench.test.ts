import { describe, expect, it } from 'vitest';
import { runHookBench } from '../../bench/hook-bench.js';

// The figures themselves belong to `npm run bench`; this checks the row is measured at all:
// the built hook makes exactly one runner-socket round trip per call (else runHookBench throws).
describe('the hook-latency bench row', () => {
  it('times the integrated hook command against a runner socket beside a bare Node and CLI start', async () => {
    const rows = await runHookBench({ samples: 3 });
    expect(rows.map((r) => r.workload)).toEqual([
      'hook call: the command warrant integrate writes, through /bin/sh, runner socket round trip',
      expect.stringMatching(/^baseline: bare Node start \(node -e ''\)/),
      'baseline: bare CLI start (node dist/cli/main.js --version)',
    ]);
    expect(rows[0]).toMatchObject({ target: 'p50 ≤ 50 ms', figures: { samples: 3 } });
    expect(typeof rows[0]!.pass).toBe('boolean');
    expect(rows[1]!.pass).toBeNull();
    expect(rows[2]!.pass).toBeNull();
  }, 60_000);
});
