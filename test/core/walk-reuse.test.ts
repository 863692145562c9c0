import { describe, expect, it } from 'vitest';
import { runWalkSync } from '../../src/core/hierarchy-graph.js';
import { walkHierarchy } from '../../src/core/hierarchy-walk.js';
import { DEFAULT_BOUNDS, hierarchyFromOutcome } from '../../src/core/hierarchy-types.js';
import { outcomeWithNewRows } from '../../src/core/walk-reuse.js';
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
