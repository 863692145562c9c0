import { spawnParentRef } from './legacy-parent-key.js';
import {
  ascending,
  sortInPlace,
  type AlsoSenior,
  type DrawnUnder,
  type LineageRowRef,
  type PlacedNode,
  type Placement,
  type UncleBasis,
  type WalkEdge,
} from './hierarchy-types.js';

/** What the breadth-first discovery established; the layout only arranges it. */
export interface Discovery<R extends LineageRowRef> {
  currentId: number;
  originId: number;
  rows: ReadonlyMap<number, R>;
  /** unordered */
  roots: readonly number[];
  /** depth of every admitted node (and of the current session) */
  depth: ReadonlyMap<number, number>;
  /** in admission order */
  admitted: readonly number[];
  /** `admitted` as a set */
  admittedSet: ReadonlySet<number>;
  /** what is drawn: the admitted nodes and the current session */
  rendered: ReadonlySet<number>;
  /** the node cap left the current session out: it is appended (docs/concepts.md step 4) */
  ceilingCurrent: boolean;
  /** every visible senior of each upward node */
  seniorEdges: ReadonlyMap<number, readonly WalkEdge[]>;
  /** for downward-admitted nodes: their edges from the level above */
  downEntries: ReadonlyMap<number, { readonly edges: readonly WalkEdge[] }>;
  /** every visible uncle of each rendered node */
  uncleEdges: ReadonlyMap<number, readonly { seniorId: number; basis: UncleBasis }[]>;
}

/**
 * Places each node under the session it is drawn under and orders the result depth-first
 * (docs/concepts.md): roots in roots
 * order (origin first when it is one, then by id), each node right after the node it hangs
 * from, its whole subtree before the next sibling, siblings by id; ceiling-placed nodes
 * last, the current session very last. Reordering never changes the node set.
 */
export function layoutHierarchy<R extends LineageRowRef>(x: Discovery<R>): { currentId: number; originId: number; roots: number[]; nodes: PlacedNode<R>[] } {
  const { admittedSet, rendered } = x;
  const rootSet = new Set(x.roots.filter((id) => admittedSet.has(id)));
  const roots = [...rootSet].sort((a, b) => (a === x.originId ? -1 : b === x.originId ? 1 : a - b));

  const placed = new Map<number, Omit<PlacedNode<R>, 'row'> & { row: R }>();
  for (const id of rendered) {
    const row = x.rows.get(id)!;
    const d = x.depth.get(id) ?? 0;
    let placement: Placement;
    let renderParentId: number | null = null;
    if (id === x.currentId && x.ceilingCurrent) placement = 'ceiling';
    else if (rootSet.has(id)) placement = 'root';
    else {
      const chosen = drawnFrom(x.seniorEdges.get(id) ?? x.downEntries.get(id)?.edges ?? NO_EDGES, admittedSet, x.depth, d);
      if (chosen) {
        renderParentId = chosen.seniorId;
        placement = chosen.kind === 'spawn' ? 'spawn' : 'uncle';
      } else placement = 'ceiling';
    }
    const uncles = x.uncleEdges.get(id) ?? [];
    const alsoSenior: AlsoSenior[] =
      uncles.length === 0
        ? []
        : uncles
            .filter((u) => rendered.has(u.seniorId))
            .map((u) => ({ id: u.seniorId, basis: u.basis }))
            .sort((a, b) => a.id - b.id);
    let drawnUnder: DrawnUnder | null = null;
    if (placement === 'uncle') drawnUnder = { reason: 'uncle', uncleId: renderParentId!, spawnParent: spawnParentWhere(row, x.rows, rendered) };
    if (placement === 'ceiling') drawnUnder = { reason: 'ceiling' };
    placed.set(id, {
      row,
      depth: d,
      renderParentId,
      spawnEdge: placement === 'spawn',
      placement,
      alsoSenior,
      hiddenSeniors: uncles.length - alsoSenior.length,
      isCurrent: id === x.currentId,
      drawnUnder,
    });
  }

  const children = new Map<number, number[]>();
  for (const [id, n] of placed) {
    if (n.renderParentId === null) continue;
    const list = children.get(n.renderParentId) ?? [];
    list.push(id);
    children.set(n.renderParentId, list);
  }
  for (const list of children.values()) sortInPlace(list, ascending);

  const order: number[] = [];
  const visit = (start: number): void => {
    // iterative depth-first walk: a node, then each child's whole subtree in id order. No
    // visited set: a node hangs from one node exactly one level up (drawnFrom), so the
    // render edges form a forest whose roots are the roots and the ceiling-placed nodes
    const stack = [start];
    while (stack.length > 0) {
      const id = stack.pop()!;
      order.push(id);
      const kids = children.get(id);
      if (kids) for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
    }
  };
  for (const r of roots) visit(r);
  const ceiling: number[] = [];
  for (const n of placed.values()) if (n.placement === 'ceiling' && !n.isCurrent) ceiling.push(n.row.id);
  sortInPlace(ceiling, ascending);
  for (const id of ceiling) visit(id);
  if (x.ceilingCurrent) visit(x.currentId);

  return { currentId: x.currentId, originId: x.originId, roots, nodes: order.map((id) => placed.get(id)!) };
}

const NO_EDGES: readonly WalkEdge[] = [];

/**
 * The edge a node is drawn from (docs/concepts.md): among its edges from an admitted node one
 * level up, its spawn parent's, otherwise the lowest senior id's (the first such edge on ties).
 * A loop, not filter and sort: the layout runs it for every node of every live view.
 */
function drawnFrom(edges: readonly WalkEdge[], admitted: ReadonlySet<number>, depth: ReadonlyMap<number, number>, d: number): WalkEdge | undefined {
  let lowest: WalkEdge | undefined;
  for (const e of edges) {
    if (!admitted.has(e.seniorId) || depth.get(e.seniorId) !== d - 1) continue;
    if (e.kind === 'spawn') return e;
    if (lowest === undefined || e.seniorId < lowest.seniorId) lowest = e;
  }
  return lowest;
}

/** Where a node's spawn parent is, judged from its own row (column, or the legacy key). */
function spawnParentWhere<R extends LineageRowRef>(
  row: R,
  rows: ReadonlyMap<number, R>,
  rendered: ReadonlySet<number>,
): { kind: 'in-tree'; id: number } | { kind: 'outside' } | { kind: 'none' } {
  const ref = spawnParentRef(row);
  if (ref === null) return { kind: 'none' }; // no column, or a key that names no session
  let parentId: number | null = null;
  if (ref.kind === 'id') parentId = ref.id;
  else {
    for (const id of rendered) if (rows.get(id)?.uid === ref.uid) parentId = id;
    if (parentId === null) return { kind: 'outside' };
  }
  // a spawn parent is always older than its child (docs/concepts.md)
  if (parentId >= row.id) return { kind: 'none' };
  return rendered.has(parentId) ? { kind: 'in-tree', id: parentId } : { kind: 'outside' };
}
