import { expect, it } from 'vitest';
import { formatRows, runMessagesBench } from '../../bench/messages-bench.js';
import { describeEachDialect } from '../helpers/harness.js';

/**
 * Keeps bench/messages-bench.ts working (small sizes; no timing is asserted here — performance
 * is judged by the benchmark's own side-by-side ratio, docs/design/quality.md).
 */
describeEachDialect('the agent-message benchmark row', (t, dialect) => {
  it('sends, delivers and reports every message of both kinds, with the baseline beside it', async () => {
    const h = t();
    const historyBefore = Number(
      (
        await h.store.kysely
          .selectFrom('message_history')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const rows = await runMessagesBench(h.ctx, { dialect, messages: 40, batch: 10, senders: 2 });
    expect(rows.map((r) => [r.dialect, r.target])).toEqual([[dialect, dialect === 'postgres' ? '≥ 1,000/s' : '≥ 2,000/s']]);
    expect(rows[0]!.figures.messages).toBe(40);
    for (const key of ['messages_per_s', 'baseline_follow_ups_per_s', 'vs_baseline']) expect(rows[0]!.figures[key]).toBeGreaterThan(0);
    // warm-up (2 rounds) + 2 measured rounds, 2 senders × 10 each: every agent message was delivered
    const history = await h.store.kysely.selectFrom('message_history').select(['state']).execute();
    expect(history.length - historyBefore).toBe(80);
    expect(history.every((r) => r.state === 'delivered')).toBe(true);
    expect(formatRows(rows).split('\n')).toHaveLength(3);
  });
});
