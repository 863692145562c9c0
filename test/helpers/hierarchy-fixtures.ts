import { LineageGraph } from '../../src/core/hierarchy-graph.js';
import type { HierarchyRowFields, WalkEdge } from '../../src/core/hierarchy-types.js';

export type Row = HierarchyRowFields;

export function row(id: number, fields: Partial<Row> = {}): Row {
  return {
    id,
    uid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
    ownerUserId: null,
    parentSessionId: null,
    parentBasis: null,
    legacyParentKey: null,
    title: `session ${id}`,
    status: 'running',
    agentRoot: 'worker',
    genesis: 'api',
    schedulingClass: 'priority',
    ...fields,
  };
}

/** A small in-memory fleet: spawn edges follow parentSessionId, uncles are given. */
export class FleetBuilder {
  rows: Row[] = [];
  uncles: WalkEdge[] = [];
  add(id: number, parent: number | null, fields: Partial<Row> = {}): Row {
    const r = row(id, { parentSessionId: parent, parentBasis: parent === null ? null : 'declared', ...fields });
    this.rows.push(r);
    return r;
  }
  uncle(senior: number, junior: number, basis: 'authenticated' | 'declared' = 'authenticated'): void {
    this.uncles.push({ seniorId: senior, juniorId: junior, kind: 'uncle', basis });
  }
  edges(): WalkEdge[] {
    const spawn: WalkEdge[] = this.rows
      .filter((r) => r.parentSessionId !== null)
      .map((r) => ({ seniorId: r.parentSessionId!, juniorId: r.id, kind: 'spawn', basis: null }));
    return [...spawn, ...this.uncles];
  }
  graph(): LineageGraph<Row> {
    return new LineageGraph(this.rows, this.edges());
  }
  get(id: number): Row {
    return this.rows.find((r) => r.id === id)!;
  }
}
