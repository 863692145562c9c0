import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideUncleEdge, runUncleRules, type UncleBasis, type UncleFacts } from '../../src/core/uncle-edge-rules.js';
import { searchUpward } from '../../src/core/upward-search.js';

const base: UncleFacts = { actingId: 1, targetId: 2, actingBasis: 'authenticated', multiUser: false, sameOwner: true };

describe('decideUncleEdge: the seven rules of docs/design/lineage.md, first match wins', () => {
  it('asks for the facts in rule order, cheapest settling first', () => {
    expect(decideUncleEdge({ ...base, actingId: 2 })).toMatchObject({ kind: 'decided', outcome: 'noop-self', effect: 'none' });
    expect(decideUncleEdge(base)).toEqual({ kind: 'need', fact: 'actingReachesTarget' });
    expect(decideUncleEdge({ ...base, actingReachesTarget: 'found' })).toMatchObject({ outcome: 'noop-already-senior' });
    expect(decideUncleEdge({ ...base, actingReachesTarget: 'not-found' })).toEqual({ kind: 'need', fact: 'inverseEdge' });
    expect(decideUncleEdge({ ...base, actingReachesTarget: 'not-found', inverseEdge: null })).toEqual({ kind: 'need', fact: 'targetIsSpawnAncestor' });
    expect(decideUncleEdge({ ...base, actingReachesTarget: 'not-found', inverseEdge: null, targetIsSpawnAncestor: 'not-found' })).toEqual({
      kind: 'need',
      fact: 'targetReachesActing',
    });
  });

  it("rule 2's search exhausting is not a refusal: evaluation continues", () => {
    expect(decideUncleEdge({ ...base, actingReachesTarget: 'exhausted' })).toEqual({ kind: 'need', fact: 'inverseEdge' });
  });

  it('rule 3: inverts, re-checks, and rolls back a cycle or an unproven re-check; a claim never erases evidence', () => {
    const r3 = { ...base, actingReachesTarget: 'not-found' as const, inverseEdge: { basis: 'declared' as UncleBasis } };
    expect(decideUncleEdge(r3)).toEqual({ kind: 'invert' });
    expect(decideUncleEdge({ ...r3, targetReachesActingAfterInversion: 'not-found' })).toMatchObject({ outcome: 'inverted', effect: 'keep' });
    expect(decideUncleEdge({ ...r3, targetReachesActingAfterInversion: 'found' })).toMatchObject({ outcome: 'refused-inversion-cycle', effect: 'rollback' });
    expect(decideUncleEdge({ ...r3, targetReachesActingAfterInversion: 'exhausted' })).toMatchObject({ outcome: 'refused-budget', effect: 'rollback' });
    expect(decideUncleEdge({ ...r3, actingBasis: 'declared', inverseEdge: { basis: 'authenticated' } })).toMatchObject({
      outcome: 'refused-basis',
      effect: 'none',
    });
    // a declared actor may invert a declared edge, an authenticated one any edge
    expect(decideUncleEdge({ ...r3, actingBasis: 'declared' })).toEqual({ kind: 'invert' });
    expect(decideUncleEdge({ ...r3, inverseEdge: { basis: 'authenticated' } })).toEqual({ kind: 'invert' });
  });

  it('rules 4–7', () => {
    const upTo4 = { ...base, actingReachesTarget: 'not-found' as const, inverseEdge: null };
    expect(decideUncleEdge({ ...upTo4, targetIsSpawnAncestor: 'found' })).toMatchObject({ outcome: 'noop-spawn-ancestor', effect: 'none' });
    const upTo5 = { ...upTo4, targetIsSpawnAncestor: 'not-found' as const };
    expect(decideUncleEdge({ ...upTo5, targetReachesActing: 'found' })).toMatchObject({ outcome: 'refused-senior-chain' });
    expect(decideUncleEdge({ ...upTo5, targetReachesActing: 'exhausted' })).toMatchObject({ outcome: 'refused-budget', rule: 5 });
    // an unproven spawn-ancestor search falls through to rule 5, which must prove absence
    expect(decideUncleEdge({ ...upTo4, targetIsSpawnAncestor: 'exhausted' })).toEqual({ kind: 'need', fact: 'targetReachesActing' });
    const upTo6 = { ...upTo5, targetReachesActing: 'not-found' as const };
    expect(decideUncleEdge({ ...upTo6, multiUser: true, sameOwner: false })).toMatchObject({ outcome: 'refused-owner' });
    expect(decideUncleEdge({ ...upTo6, multiUser: false, sameOwner: false })).toMatchObject({ outcome: 'written', effect: 'write' });
    expect(decideUncleEdge({ ...upTo6, multiUser: true, sameOwner: true })).toMatchObject({ outcome: 'written', rule: 7 });
  });
});

/**
 * An in-memory lineage graph driven through the same rule loop: spawn edges (older parent)
 * and uncle edges with their basis. The property: whatever sequence of calls, with a small
 * budget so refusals by budget happen too, the graph never has a cycle.
 */
class Model {
  parent = new Map<number, number>();
  uncles = new Map<number, Map<number, UncleBasis>>(); // junior → (uncle → basis)
  n = 0;
  add(parent: number | null): number {
    const id = ++this.n;
    if (parent !== null && parent < id) this.parent.set(id, parent);
    return id;
  }
  seniors(id: number, spawnOnly: boolean): number[] {
    const out: number[] = [];
    const p = this.parent.get(id);
    if (p !== undefined) out.push(p);
    if (!spawnOnly) out.push(...(this.uncles.get(id)?.keys() ?? []));
    return out;
  }
  reaches(from: number, target: number, spawnOnly: boolean, budget: number) {
    return searchUpward({
      from: [{ id: from }],
      target,
      budget,
      seniorsOf: async (level) => level.flatMap((x) => this.seniors(x.id, spawnOnly).map((id) => ({ id }))),
    }).then((r) => r.result);
  }
  async follow(a: number, b: number, basis: UncleBasis, budget: number) {
    const snapshot = new Map([...this.uncles].map(([k, v]) => [k, new Map(v)]));
    const step = await runUncleRules(
      { actingId: a, targetId: b, actingBasis: basis, multiUser: false, sameOwner: true },
      {
        fact: async (name) => {
          if (name === 'actingReachesTarget') return this.reaches(b, a, false, budget);
          if (name === 'inverseEdge') {
            const e = this.uncles.get(a)?.get(b);
            return e ? { basis: e } : null;
          }
          if (name === 'targetIsSpawnAncestor') return this.reaches(a, b, true, budget);
          return this.reaches(a, b, false, budget);
        },
        invert: async () => {
          this.uncles.get(a)!.delete(b);
          if (!this.uncles.has(b)) this.uncles.set(b, new Map());
          this.uncles.get(b)!.set(a, basis);
          return this.reaches(a, b, false, budget);
        },
      },
    );
    if (step.effect === 'rollback') this.uncles = snapshot;
    if (step.effect === 'write') {
      if (!this.uncles.has(b)) this.uncles.set(b, new Map());
      this.uncles.get(b)!.set(a, basis);
    }
    return step;
  }
  /** an independent checker: Kahn's algorithm over both edge kinds */
  acyclic(): boolean {
    const indeg = new Map<number, number>();
    const down = new Map<number, number[]>();
    for (let i = 1; i <= this.n; i++) indeg.set(i, 0);
    const edge = (s: number, j: number) => {
      down.set(s, [...(down.get(s) ?? []), j]);
      indeg.set(j, indeg.get(j)! + 1);
    };
    for (const [j, p] of this.parent) edge(p, j);
    for (const [j, us] of this.uncles) for (const u of us.keys()) edge(u, j);
    const queue = [...indeg].filter(([, d]) => d === 0).map(([id]) => id);
    let seen = 0;
    while (queue.length > 0) {
      const x = queue.pop()!;
      seen++;
      for (const j of down.get(x) ?? []) {
        indeg.set(j, indeg.get(j)! - 1);
        if (indeg.get(j) === 0) queue.push(j);
      }
    }
    return seen === this.n;
  }
}

type Op = { kind: 'spawn'; parent: number } | { kind: 'root' } | { kind: 'follow'; a: number; b: number; basis: UncleBasis } | { kind: 'remove'; pick: number };

const follow = fc.record({ kind: fc.constant('follow' as const), a: fc.nat(), b: fc.nat(), basis: fc.constantFrom<UncleBasis>('authenticated', 'declared') });
// follow-ups dominate, on a handful of sessions, so inversions and long paths are common
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('root' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('spawn' as const), parent: fc.nat() }), weight: 2 },
  { arbitrary: follow, weight: 10 },
  { arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }), weight: 1 },
);

describe('uncle-edge rules over a random in-memory graph', () => {
  it('never create a cycle, whatever the sequence (budgets small enough to run out)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 60 }), fc.integer({ min: 2, max: 8 }), async (ops, budget) => {
        const m = new Model();
        m.add(null);
        m.add(null);
        for (const o of ops) {
          if (o.kind === 'root') m.add(null);
          else if (o.kind === 'spawn') m.add((o.parent % m.n) + 1);
          else if (o.kind === 'remove') {
            const all = [...m.uncles].flatMap(([j, us]) => [...us.keys()].map((u) => [j, u] as const));
            if (all.length > 0) {
              const [j, u] = all[o.pick % all.length]!;
              m.uncles.get(j)!.delete(u);
            }
          } else {
            const a = (o.a % m.n) + 1;
            const b = (o.b % m.n) + 1;
            const before = m.uncles.get(a)?.get(b);
            const step = await m.follow(a, b, o.basis, budget);
            // what each outcome promises about the graph
            if (step.outcome === 'written') expect(m.uncles.get(b)?.get(a)).toBe(o.basis);
            if (step.outcome === 'inverted') {
              expect(m.uncles.get(b)?.get(a)).toBe(o.basis);
              expect(m.uncles.get(a)?.has(b)).toBe(false);
            }
            if (step.outcome === 'refused-inversion-cycle' || step.outcome === 'refused-basis') expect(m.uncles.get(a)?.get(b)).toBe(before);
          }
          expect(m.acyclic()).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('four individually legal calls that would build A → B → X → A leave no cycle (the inversion re-check)', async () => {
    const m = new Model();
    const [a, b, x] = [m.add(null), m.add(null), m.add(null)];
    expect((await m.follow(b, a, 'authenticated', 5000)).outcome).toBe('written'); // B → A
    expect((await m.follow(x, a, 'authenticated', 5000)).outcome).toBe('written'); // X → A
    expect((await m.follow(b, x, 'authenticated', 5000)).outcome).toBe('written'); // B → X
    // A queues B: inverting B → A into A → B would close A → B → X → A
    expect((await m.follow(a, b, 'authenticated', 5000)).outcome).toBe('refused-inversion-cycle');
    expect(m.uncles.get(a)?.get(b)).toBe('authenticated'); // B → A rolled back into place
    expect(m.uncles.get(b)?.has(a) ?? false).toBe(false);
    expect(m.acyclic()).toBe(true);
  });
});
