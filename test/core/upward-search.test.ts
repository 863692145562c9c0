import { describe, expect, it } from 'vitest';
import { REACHABILITY_BUDGET, searchUpward } from '../../src/core/upward-search.js';

type N = { id: number };

/** seniors[junior] = its seniors */
function graph(seniors: Record<number, number[]>) {
  const levels: number[][] = [];
  return {
    levels,
    seniorsOf: async (level: readonly N[]) => {
      levels.push(level.map((n) => n.id));
      return level.flatMap((n) => (seniors[n.id] ?? []).map((id) => ({ id })));
    },
  };
}

describe('searchUpward (docs/design/lineage.md: upward, breadth-first, bounded by visited sessions)', () => {
  it('finds a target above the start, one batch per level', async () => {
    const g = graph({ 4: [3, 2], 3: [1], 2: [1] });
    const r = await searchUpward({ from: [{ id: 4 }], target: 1, seniorsOf: g.seniorsOf });
    expect(r.result).toBe('found');
    expect(g.levels).toEqual([[4], [3, 2]]);
  });

  it('proves absence when the whole ancestry is visited, and never reports the start itself', async () => {
    const g = graph({ 4: [3], 3: [2] });
    expect((await searchUpward({ from: [{ id: 4 }], target: 5, seniorsOf: g.seniorsOf })).result).toBe('not-found');
    expect((await searchUpward({ from: [{ id: 4 }], target: 4, seniorsOf: graph({}).seniorsOf })).result).toBe('not-found');
  });

  it('terminates on a cycle (a corrupt store) through the visited set', async () => {
    const g = graph({ 1: [2], 2: [3], 3: [1] });
    const r = await searchUpward({ from: [{ id: 1 }], target: 9, seniorsOf: g.seniorsOf });
    expect(r).toEqual({ result: 'not-found', visited: 3 });
  });

  it('exhausts exactly when more than the budget of sessions would be visited', async () => {
    // a chain 1 ← 2 ← … ← n: from n the walk visits n sessions
    const chain = (n: number) => graph(Object.fromEntries(Array.from({ length: n - 1 }, (_, i) => [i + 2, [i + 1]])));
    expect((await searchUpward({ from: [{ id: 10 }], target: 99, seniorsOf: chain(10).seniorsOf, budget: 10 })).result).toBe('not-found');
    expect((await searchUpward({ from: [{ id: 11 }], target: 99, seniorsOf: chain(11).seniorsOf, budget: 10 })).result).toBe('exhausted');
    // the target on the level where the budget runs out is still found
    expect((await searchUpward({ from: [{ id: 11 }], target: 1, seniorsOf: chain(11).seniorsOf, budget: 10 })).result).toBe('found');
    expect(REACHABILITY_BUDGET).toBe(5000);
  });
});
