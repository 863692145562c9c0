import { expect, it } from 'vitest';
import { formatRows, runAuditBench } from '../../bench/audit-bench.js';
import { describeEachDialect } from '../helpers/harness.js';

/**
 * Keeps bench/audit-bench.ts working (small sizes; no timing is asserted here — performance
 * is judged by the benchmark's own side-by-side ratios, docs/design/quality.md).
 */
describeEachDialect('the audit benchmark rows', (t, dialect) => {
  it('produce the chaining-cost and verify rows with their figures and targets, leaving a log that verifies', async () => {
    const h = t();
    const rows = await runAuditBench(h.ctx, { dialect, writes: 100, verifyEntries: 3_000 });
    expect(rows.map((r) => [r.workload, r.dialect, r.target])).toEqual([
      ['audit chain: added latency of chaining on a write (PATCH, one event)', dialect, '≤ 20 % added latency'],
      ['audit chain: verify throughput', dialect, '≥ 200,000 entries/s'],
    ]);
    expect(rows[0]!.figures).toMatchObject({ writes_each: 100 });
    for (const key of ['median_with_ms', 'median_without_ms', 'added_latency_pct']) expect(typeof rows[0]!.figures[key]).toBe('number');
    expect(rows[1]!.figures.entries).toBeGreaterThanOrEqual(3_000);
    expect(rows[1]!.figures.entries_per_s).toBeGreaterThan(0);
    expect(h.ctx.benchOnly).toBeUndefined();
    expect(formatRows(rows).split('\n')).toHaveLength(4);
  });
});
