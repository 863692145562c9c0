import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineageGraph, runWalkSync } from '../../src/core/hierarchy-graph.js';
import { walkHierarchy } from '../../src/core/hierarchy-walk.js';
import { DEFAULT_BOUNDS, hierarchyFromOutcome } from '../../src/core/hierarchy-types.js';
import { outcomeWithNewRows, walkFromStaysWithin } from '../../src/core/walk-reuse.js';
import { randomGraph } from '../helpers/hierarchy-check.js';
import { FleetBuilder } from '../helpers/hierarchy-fixtures.js';

function fleet(): FleetBuilder {
  const f = new FleetBuilder();
  f.add(1, null, { agentRoot: 'router', title: 'root' });
  f.add(2, 1, { agentRoot: 'worker', title: 'worker' });
  f.add(3, 2, { agentRoot: 'helper', title: 'helper' });
  f.add(9, null, { agentRoot: 'router', title: 'elsewhere' });
  return f;
}

const walk = (f: FleetBuilder, from: number) => {
  const graph = f.graph();
  return runWalkSync(walkHierarchy(f.get(from), 'all', DEFAULT_BOUNDS), (r) => graph.answer(r));
};

describe('a walk outcome kept across a rows-only change', () => {
  it('carries the new rows and equals a fresh walk when only display fields changed', () => {
    const f = fleet();
    const before = walk(f, 3);
    const renamed = { ...f.get(2), title: 'renamed worker', status: 'stopped' as const };
    const kept = outcomeWithNewRows(before, [2, 1], new Map([renamed, f.get(1)].map((r) => [r.id, r])));
    expect(kept).not.toBeNull();
    const changed = fleet();
    Object.assign(changed.get(2), { title: 'renamed worker', status: 'stopped' });
    const fresh = walk(changed, 3);
    expect(hierarchyFromOutcome(kept!, DEFAULT_BOUNDS, () => null)).toEqual(hierarchyFromOutcome(fresh, DEFAULT_BOUNDS, () => null));
    expect(kept!.footprint).toBe(before.footprint);
  });

  it('refuses (walk again) when a touched session is not shown, is gone, or changed owner or parent', () => {
    const f = fleet();
    const before = walk(f, 3);
    const rows = (...rs: ReturnType<FleetBuilder['get']>[]) => new Map(rs.map((r) => [r.id, r]));
    // not shown: its old row is unknown, so a moved parent key could not be told
    expect(outcomeWithNewRows(before, [9], rows(f.get(9)))).toBeNull();
    // gone
    expect(outcomeWithNewRows(before, [2], new Map())).toBeNull();
    expect(outcomeWithNewRows(before, [2], rows({ ...f.get(2), ownerUserId: 7 }))).toBeNull();
    expect(outcomeWithNewRows(before, [3], rows({ ...f.get(3), parentSessionId: 1 }))).toBeNull();
    expect(outcomeWithNewRows(before, [3], rows({ ...f.get(3), parentBasis: 'legacy', legacyParentKey: '#1' }))).toBeNull();
  });
});

describe('a walk from an upward session of a complete walk (the broadcast refresh skips it)', () => {
  it('shows no session the complete walk does not, on random graphs with small bounds and any owner filter', () => {
    let skipped = 0;
    let kept = 0;
    fc.assert(
      fc.property(randomGraph({ withOwners: true }), (g) => {
        const graph = new LineageGraph(g.rows, g.edges);
        const walkFrom = (id: number) => runWalkSync(walkHierarchy(graph.row(id)!, g.owners, g.bounds), (r) => graph.answer(r));
        const outer = walkFrom(g.current);
        const shown = new Set(outer.nodes.map((n) => n.row.id));
        for (const id of outer.upward) {
          if (!walkFromStaysWithin(outer, id)) {
            kept++;
            continue;
          }
          skipped++;
          for (const n of walkFrom(id).nodes) expect(shown.has(n.row.id), `walk from ${id} shows ${n.row.id}, outside the walk from ${g.current}`).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
    // both answers occur, so neither half of the rule goes unexercised
    expect(skipped).toBeGreaterThan(100);
    expect(kept).toBeGreaterThan(100);
  });

  it('is false for a truncated walk, a walk the depth bound cut off above, and a session it reached only going down', () => {
    const f = fleet();
    const graph = f.graph();
    const from = (id: number, bounds = DEFAULT_BOUNDS) => runWalkSync(walkHierarchy(f.get(id), 'all', bounds), (r) => graph.answer(r));
    const full = from(3);
    expect(walkFromStaysWithin(full, 1)).toBe(true);
    expect(walkFromStaysWithin(full, 3)).toBe(true);
    // 9 is another tree; from the root, 3 is reached going down, and its walk would climb
    expect(walkFromStaysWithin(full, 9)).toBe(false);
    expect(walkFromStaysWithin(from(1), 3)).toBe(false);
    const cut = from(3, { ...DEFAULT_BOUNDS, maxDepth: 1 });
    expect(cut.upwardComplete).toBe(false);
    expect(walkFromStaysWithin(cut, 2)).toBe(false);
    const capped = from(3, { ...DEFAULT_BOUNDS, maxNodes: 1 });
    expect(capped.truncated).toBe(true);
    expect(walkFromStaysWithin(capped, 2)).toBe(false);
  });
});
