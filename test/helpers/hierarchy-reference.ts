import type { OwnerFilter, WalkBounds, WalkEdge } from '../../src/core/hierarchy-types.js';
import type { Row } from './hierarchy-fixtures.js';

/**
 * An independent, deliberately naive statement of docs/design/lineage.md's walk over a whole graph in
 * memory (no batching, no paging): the node set, each node's depth, the roots and the
 * origin. Property tests compare the real walk against it.
 */
export interface ReferenceResult {
  upward: Set<number>;
  set: Set<number>;
  depth: Map<number, number>;
  roots: Set<number>;
  originId: number;
  ceiling: boolean;
  /** docs/design/lineage.md: some session of the hierarchy was left out */
  leftOut: boolean;
}

export function referenceHierarchy(
  rows: readonly Row[],
  edges: readonly WalkEdge[],
  current: number,
  owners: OwnerFilter,
  bounds: WalkBounds,
): ReferenceResult {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const visible = (id: number): boolean => {
    const r = byId.get(id);
    return !!r && (owners === 'all' || owners.includes(r.ownerUserId));
  };
  const seniors = (id: number): WalkEdge[] => edges.filter((e) => e.juniorId === id && visible(e.seniorId) && byId.has(e.juniorId));
  const juniors = (id: number): WalkEdge[] => edges.filter((e) => e.seniorId === id && visible(e.juniorId));

  const dist = new Map<number, number>([[current, 0]]);
  let frontier = [current];
  for (let k = 1; k <= bounds.maxDepth && frontier.length > 0; k++) {
    const next: number[] = [];
    for (const x of frontier) for (const e of seniors(x)) if (!dist.has(e.seniorId)) (dist.set(e.seniorId, k), next.push(e.seniorId));
    frontier = next;
  }
  const upward = new Set(dist.keys());
  const bfsWithin = (roots: Set<number>): Map<number, number> => {
    const d = new Map<number, number>();
    let level = [...roots];
    for (const r of level) d.set(r, 0);
    for (let k = 1; level.length > 0; k++) {
      const next: number[] = [];
      for (const x of level) for (const e of juniors(x)) if (upward.has(e.juniorId) && !d.has(e.juniorId)) (d.set(e.juniorId, k), next.push(e.juniorId));
      level = next;
    }
    return d;
  };
  let originId = current;
  const seen = new Set([current]);
  for (;;) {
    const parent = seniors(originId).find((e) => e.kind === 'spawn');
    if (!parent || !upward.has(parent.seniorId) || seen.has(parent.seniorId)) break;
    originId = parent.seniorId;
    seen.add(originId);
  }

  // the origin is always a root (walked from depth 0), beside the true tops
  const roots = new Set([originId, ...[...upward].filter((x) => !seniors(x).some((e) => upward.has(e.seniorId)))]);
  let upDepth = bfsWithin(roots);
  while (upDepth.size < upward.size) {
    const orphan = [...upward].filter((x) => !upDepth.has(x)).sort((a, b) => dist.get(b)! - dist.get(a)! || a - b)[0]!;
    roots.add(orphan);
    upDepth = bfsWithin(roots);
  }

  const set = new Set<number>();
  const depth = new Map<number, number>();
  for (const x of [...upward].sort((a, b) => upDepth.get(a)! - upDepth.get(b)! || a - b)) {
    if (set.size < bounds.maxNodes) (set.add(x), depth.set(x, upDepth.get(x)!));
  }
  for (let d = 0; d < bounds.maxDepth; d++) {
    const level = [...set].filter((x) => depth.get(x) === d);
    const candidates = [...new Set(level.flatMap((x) => juniors(x).map((e) => e.juniorId)))].filter((j) => !set.has(j) && !upward.has(j)).sort((a, b) => a - b);
    for (const j of candidates) if (set.size < bounds.maxNodes) (set.add(j), depth.set(j, d + 1));
  }
  const ceiling = !set.has(current);
  if (ceiling) (set.add(current), depth.set(current, upDepth.get(current)!));

  const leftOut =
    [...upward].some((x) => !set.has(x)) ||
    [...upward].some((x) => seniors(x).some((e) => !set.has(e.seniorId))) ||
    [...set].some((x) => juniors(x).some((e) => !set.has(e.juniorId)));
  return {
    upward,
    set,
    depth, // a root the node cap cut (S as its own origin) is drawn at the ceiling, not as a root
    roots: new Set([...roots].filter((r) => set.has(r) && !(ceiling && r === current))),
    originId,
    ceiling,
    leftOut,
  };
}
