import { describe, expect, it } from 'vitest';
import { runWalkSync } from '../../src/core/hierarchy-graph.js';
import { walkHierarchy } from '../../src/core/hierarchy-walk.js';
import { DEFAULT_BOUNDS, hierarchyFromOutcome, type Hierarchy, type WalkBounds } from '../../src/core/hierarchy-types.js';
import { renderHierarchyOutline } from '../../src/render/hierarchy-outline.js';
import { FleetBuilder } from '../helpers/hierarchy-fixtures.js';

function hierarchy(fleet: FleetBuilder, current: number, bounds: WalkBounds = DEFAULT_BOUNDS): Hierarchy {
  const graph = fleet.graph();
  const outcome = runWalkSync(walkHierarchy(fleet.get(current), 'all', bounds), (r) => graph.answer(r));
  return hierarchyFromOutcome(outcome, bounds, () => null);
}

describe('hierarchy walk (pure, in memory)', () => {
  it('renders the outline example of docs/design/lineage.md exactly', () => {
    const f = new FleetBuilder();
    f.add(101, null, { agentRoot: 'router', genesis: 'web_ui', title: 'Triage the flaky deploy' });
    f.add(102, 101, { agentRoot: 'worker', genesis: 'web_ui', title: 'Read the CI logs' });
    f.add(103, null, { agentRoot: 'router', genesis: 'slack', title: 'Ship the hotfix' });
    f.add(104, 102, { agentRoot: 'worker', genesis: 'web_ui', title: 'Patch the retry loop' });
    f.uncle(103, 104, 'authenticated');
    const h = hierarchy(f, 104);
    expect(h.originId).toBe(101);
    expect(h.roots).toEqual([101, 103]);
    expect(h.truncated).toBe(false);
    expect(renderHierarchyOutline(h)).toBe(
      [
        '- #101 [router] {web_ui · priority} Triage the flaky deploy',
        '  - #102 [worker] {web_ui · priority} Read the CI logs',
        '- #103 [router] {slack · priority} Ship the hotfix',
        '  - #104 [worker] {web_ui · priority} Patch the retry loop (also senior: #103) (shown under uncle #103, not its spawn parent #102) ← this session',
      ].join('\n'),
    );
  });

  it("draws each of eight routers' children directly under its own router", () => {
    const f = new FleetBuilder();
    f.add(1, null, { agentRoot: 'trigger' });
    for (let i = 0; i < 8; i++) f.add(10 + i, 1, { agentRoot: 'router' });
    for (let i = 0; i < 8; i++) f.add(20 + i, 10 + i, { agentRoot: 'worker' });
    const h = hierarchy(f, 23);
    expect(h.nodes.map((n) => n.id)).toEqual([1, 10, 20, 11, 21, 12, 22, 13, 23, 14, 24, 15, 25, 16, 26, 17, 27]);
    for (const n of h.nodes.filter((n) => n.id >= 20)) expect(n.renderParentId).toBe(n.id - 10);
  });
});
