import fc from 'fast-check';
import { expect } from 'vitest';
import { LineageGraph, runWalkSync } from '../../src/core/hierarchy-graph.js';
import { walkHierarchy } from '../../src/core/hierarchy-walk.js';
import { hierarchyFromOutcome, type Hierarchy, type OwnerFilter, type WalkBounds, type WalkEdge } from '../../src/core/hierarchy-types.js';
import { renderHierarchyOutline } from '../../src/render/hierarchy-outline.js';
import { row, type Row } from './hierarchy-fixtures.js';
import { referenceHierarchy } from './hierarchy-reference.js';

export interface RandomGraph {
  rows: Row[];
  edges: WalkEdge[];
  current: number;
  owners: OwnerFilter;
  bounds: WalkBounds;
}

/** Random lineages: spawn trees (a parent is always older), uncle rows anywhere — cycles and self-loops included. */
export const randomGraph = (options: { maxSessions?: number; withOwners?: boolean } = {}): fc.Arbitrary<RandomGraph> =>
  fc
    .record({
      n: fc.integer({ min: 1, max: options.maxSessions ?? 40 }),
      seed: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 2 })), {
        minLength: 60,
        maxLength: 60,
      }),
      uncles: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: 30 }),
      current: fc.nat(),
      maxDepth: fc.integer({ min: 1, max: 5 }),
      maxNodes: fc.integer({ min: 1, max: 25 }),
      owners: options.withOwners ? fc.oneof(fc.constant('all' as const), fc.subarray([null, 1, 2], { minLength: 1 })) : fc.constant('all' as const),
      gap: fc.integer({ min: 1, max: 3 }),
    })
    .map(({ n, seed, uncles, current, maxDepth, maxNodes, owners, gap }) => {
      const ids = Array.from({ length: n }, (_, i) => 1 + i * gap);
      const rows: Row[] = [];
      const edges: WalkEdge[] = [];
      ids.forEach((id, i) => {
        const [hasParent, which, owner] = seed[i % seed.length]!;
        let parent: number | null = null;
        if (i > 0 && hasParent < 0.8) {
          // bias toward recent sessions so chains get deep
          const pick = Math.floor(i - 1 - Math.floor(which * which * i));
          parent = ids[Math.max(0, Math.min(i - 1, pick))]!;
        }
        const ownerUserId = options.withOwners ? ([null, 1, 2] as const)[owner]! : null;
        rows.push(row(id, { parentSessionId: parent, parentBasis: parent === null ? null : 'declared', ownerUserId, title: `s${id}` }));
        if (parent !== null) edges.push({ seniorId: parent, juniorId: id, kind: 'spawn', basis: null });
      });
      for (const [a, b, authenticated] of uncles) {
        const senior = ids[a % n]!;
        const junior = ids[b % n]!;
        if (edges.some((e) => e.kind === 'uncle' && e.seniorId === senior && e.juniorId === junior)) continue;
        edges.push({ seniorId: senior, juniorId: junior, kind: 'uncle', basis: authenticated ? 'authenticated' : 'declared' });
      }
      let currentId = ids[current % n]!;
      const filter = owners as OwnerFilter;
      // the caller can always see the session it asked about (else it is a 404)
      const visible = rows.filter((r) => filter === 'all' || filter.includes(r.ownerUserId));
      if (!visible.some((r) => r.id === currentId)) currentId = visible.length > 0 ? visible[current % visible.length]!.id : currentId;
      const effective: OwnerFilter = visible.length > 0 ? filter : 'all';
      return { rows, edges, current: currentId, owners: effective, bounds: { maxDepth, maxNodes } };
    });

export function walkInMemory(g: RandomGraph): Hierarchy {
  const graph = new LineageGraph(g.rows, g.edges);
  const outcome = runWalkSync(walkHierarchy(graph.row(g.current)!, g.owners, g.bounds), (r) => graph.answer(r));
  return hierarchyFromOutcome(outcome, g.bounds, () => null);
}

/** Every property of docs/design/lineage.md's walk, checked against the graph and the naive reference. */
export function checkHierarchy(g: RandomGraph, h: Hierarchy): void {
  const ref = referenceHierarchy(g.rows, g.edges, g.current, g.owners, g.bounds);
  const ids = h.nodes.map((n) => n.id);
  const byId = new Map(h.nodes.map((n) => [n.id, n]));
  // each session once; the node set equals the breadth-first set, with its depths
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(ids)).toEqual(ref.set);
  for (const n of h.nodes) expect(n.depth).toBe(ref.depth.get(n.id));
  // S always present, marked, and at most maxNodes + 1 sessions (+1 only as the ceiling)
  expect(ids).toContain(g.current);
  expect(h.nodes.filter((n) => n.isCurrent).map((n) => n.id)).toEqual([g.current]);
  expect(h.nodes.length).toBeLessThanOrEqual(g.bounds.maxNodes + 1);
  if (h.nodes.length === g.bounds.maxNodes + 1) expect(byId.get(g.current)!.placement).toBe('ceiling');
  expect(byId.get(g.current)!.placement === 'ceiling' && byId.get(g.current)!.renderParentId === null).toBe(ref.ceiling);
  // truncated exactly when something was left out
  expect(h.truncated).toBe(ref.leftOut);
  // origin and roots
  expect(h.originId).toBe(ref.originId);
  expect(new Set(h.roots)).toEqual(ref.roots);
  expect(h.roots).toEqual([...h.roots].sort((a, b) => (a === h.originId ? -1 : b === h.originId ? 1 : a - b)));

  const edgesTo = (id: number) => g.edges.filter((e) => e.juniorId === id);
  for (const n of h.nodes) {
    if (n.placement === 'root') {
      expect(n.renderParentId).toBeNull();
      expect(n.depth).toBe(0);
      continue;
    }
    if (n.placement === 'ceiling') {
      expect(n.renderParentId).toBeNull();
      expect(n.drawnUnder).toEqual({ reason: 'ceiling' });
      continue;
    }
    // drawn under a shown senior one level up: its spawn parent if that one qualifies, else the lowest id
    const candidates = edgesTo(n.id).filter(
      (e) => byId.has(e.seniorId) && byId.get(e.seniorId)!.placement !== 'ceiling' && byId.get(e.seniorId)!.depth === n.depth - 1,
    );
    const spawn = candidates.find((e) => e.kind === 'spawn');
    const expected = spawn ?? [...candidates].sort((a, b) => a.seniorId - b.seniorId)[0]!;
    expect(n.renderParentId).toBe(expected.seniorId);
    expect(n.placement).toBe(spawn ? 'spawn' : 'uncle');
    expect(n.spawnEdge).toBe(!!spawn);
    if (!spawn) expect(n.drawnUnder).toMatchObject({ reason: 'uncle', uncleId: expected.seniorId });
    else expect(n.drawnUnder).toBeNull();
  }
  // chips: visible uncles that are shown, and the count of the rest
  const visible = (id: number) => {
    const r = g.rows.find((x) => x.id === id)!;
    return g.owners === 'all' || g.owners.includes(r.ownerUserId);
  };
  for (const n of h.nodes) {
    const uncles = edgesTo(n.id).filter((e) => e.kind === 'uncle' && visible(e.seniorId));
    expect(n.alsoSenior.map((s) => s.id)).toEqual(
      uncles
        .filter((e) => byId.has(e.seniorId))
        .map((e) => e.seniorId)
        .sort((a, b) => a - b),
    );
    expect(n.hiddenSeniors).toBe(uncles.filter((e) => !byId.has(e.seniorId)).length);
  }

  // order: a preorder of the render forest — roots in order, children by id, ceiling nodes after
  const children = new Map<number, number[]>();
  for (const n of h.nodes) if (n.renderParentId !== null) children.set(n.renderParentId, [...(children.get(n.renderParentId) ?? []), n.id]);
  const expectedOrder: number[] = [];
  const visit = (id: number): void => {
    expectedOrder.push(id);
    for (const c of (children.get(id) ?? []).sort((a, b) => a - b)) visit(c);
  };
  for (const r of h.roots) visit(r);
  const ceilings = h.nodes
    .filter((n) => n.placement === 'ceiling')
    .map((n) => n.id)
    .sort((a, b) => a - b);
  for (const c of ceilings.filter((c) => c !== g.current)) visit(c);
  if (ceilings.includes(g.current)) visit(g.current);
  expect(ids).toEqual(expectedOrder);
  // each node right after its render parent's line or its previous sibling's whole subtree
  const position = new Map(ids.map((id, i) => [id, i]));
  const subtreeEnd = (id: number): number => Math.max(position.get(id)!, ...(children.get(id) ?? []).map(subtreeEnd));
  for (const n of h.nodes) {
    if (n.renderParentId === null) continue;
    const siblings = children.get(n.renderParentId)!.sort((a, b) => a - b);
    const k = siblings.indexOf(n.id);
    const before = k === 0 ? position.get(n.renderParentId)! : subtreeEnd(siblings[k - 1]!);
    expect(position.get(n.id)).toBe(before + 1);
  }
  // the outline indents each line exactly one level under its render parent
  const lines = renderHierarchyOutline(h).split('\n').slice(0, h.nodes.length);
  const indent = (line: string) => (line.length - line.trimStart().length) / 2;
  h.nodes.forEach((n, i) => {
    expect(lines[i]!.trimStart().startsWith(`- #${n.id} `)).toBe(true);
    expect(indent(lines[i]!)).toBe(n.renderParentId === null ? 0 : indent(lines[position.get(n.renderParentId)!]!) + 1);
  });
}
