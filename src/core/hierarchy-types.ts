/**
 * The types of the hierarchy walk (docs/concepts.md): what the walk asks the
 * store for, what it gets back, and the structure it produces. Pure data, shared by the
 * walk, its drivers (store, in-memory), the renderers and the web UI.
 */

/** docs/concepts.md: at most 8 levels up, 8 levels down from the roots. */
const MAX_DEPTH = 8;
/** docs/concepts.md: at most 150 sessions (151 with a ceiling-placed requested session). */
export const MAX_NODES = 150;

export interface WalkBounds {
  maxDepth: number;
  maxNodes: number;
}

export const DEFAULT_BOUNDS: WalkBounds = { maxDepth: MAX_DEPTH, maxNodes: MAX_NODES };

/** What the walk reads off a session row (a subset of the store's `HIERARCHY_COLUMNS`). */
export interface LineageRowRef {
  id: number;
  uid: string;
  ownerUserId: number | null;
  parentSessionId: number | null;
  parentBasis: string | null;
  legacyParentKey: string | null;
  /** whether it has uncle edges, when the read that produced the row said (undefined: unknown) */
  hasUncles?: boolean;
}

export type UncleBasis = 'authenticated' | 'declared';
type EdgeKind = 'spawn' | 'uncle';

/** One senior → junior edge as lineage resolves it (`juniorsOf` / `seniorsOf`). */
export interface WalkEdge {
  seniorId: number;
  juniorId: number;
  kind: EdgeKind;
  /** uncle edges only */
  basis: UncleBasis | null;
}

/** Owners whose sessions the walk may show, or 'all' (docs/concepts.md). */
export type OwnerFilter = 'all' | readonly (number | null)[];

/**
 * Sorts in place, unless the list is already in order: then it is returned as it is, without
 * the scratch copy every sort allocates. A live refresh sorts small, mostly ordered lists for
 * every node of every open view, and that garbage was a tenth of an edge change's.
 */
export function sortInPlace<T>(list: T[], compare: (a: T, b: T) => number): T[] {
  for (let i = 1; i < list.length; i++) if (compare(list[i - 1]!, list[i]!) > 0) return list.sort(compare);
  return list;
}

/** Ascending numbers (ids). */
export const ascending = (a: number, b: number): number => a - b;

export function ownerVisible(filter: OwnerFilter, owner: number | null): boolean {
  return filter === 'all' || filter.includes(owner);
}

/**
 * The walk's reads. Each is one batched store query (never one per node):
 * - `seniors`: every senior (lineage parent and uncles) of each session, with its row;
 * - `juniors`: the `limit` lowest-id juniors of the given seniors that have an id above
 *   `afterId`, are not in `exclude` and are visible under `owners`, with every edge from
 *   the given seniors to each of them;
 * - `uncles`: every uncle edge of the given juniors (for the "also senior" chips).
 */
export type WalkRequest<R extends LineageRowRef> =
  | { type: 'seniors'; of: readonly R[] }
  | { type: 'juniors'; of: readonly R[]; exclude: ReadonlySet<number>; afterId: number; limit: number; owners: OwnerFilter }
  | { type: 'uncles'; of: readonly number[] };

export type SeniorsAnswer<R> = { edge: WalkEdge; senior: R }[];

export interface JuniorsAnswer<R> {
  /** sorted by junior id, then senior id */
  rows: { edge: WalkEdge; junior: R }[];
  /** the highest junior id picked (the next page starts after it), null when none */
  lastPickedId: number | null;
  /** fewer than `limit` juniors qualified: there are no more */
  exhausted: boolean;
  /**
   * every uncle edge of the picked juniors (from any senior), when the driver read them with
   * the page: the walk then needs no separate chip read for these sessions
   */
  uncles?: UnclesAnswer;
}

export type UnclesAnswer = { juniorId: number; seniorId: number; basis: UncleBasis; seniorOwnerUserId: number | null }[];

export type WalkAnswer<R> = SeniorsAnswer<R> | JuniorsAnswer<R> | UnclesAnswer;

export type Placement = 'root' | 'spawn' | 'uncle' | 'ceiling';

/** Why a node is not drawn under its spawn parent (docs/concepts.md: the line must say so). */
export type DrawnUnder =
  | {
      reason: 'uncle';
      uncleId: number;
      /** where its spawn parent is: drawn deeper in this tree, not in it, or it has none */
      spawnParent: { kind: 'in-tree'; id: number } | { kind: 'outside' } | { kind: 'none' };
    }
  | { reason: 'ceiling' };

export interface AlsoSenior {
  id: number;
  basis: UncleBasis;
}

/** One node of the walk's result, with the row it was built from. */
export interface PlacedNode<R> {
  row: R;
  depth: number;
  renderParentId: number | null;
  spawnEdge: boolean;
  placement: Placement;
  alsoSenior: AlsoSenior[];
  hiddenSeniors: number;
  isCurrent: boolean;
  drawnUnder: DrawnUnder | null;
}

export interface WalkOutcome<R> {
  currentId: number;
  originId: number;
  /** the roots shown, origin first when it is one, then by id */
  roots: number[];
  truncated: boolean;
  /** output order: depth-first over the discovered set (docs/concepts.md) */
  nodes: PlacedNode<R>[];
  /** every session id the walk read (rows and edge ends): a change elsewhere cannot alter this result */
  footprint: Set<number>;
  /** the sessions the upward walk reached (the current one included) */
  upward: ReadonlySet<number>;
  /** true when the upward walk reached every visible senior of every session in `upward` (the depth bound cut none off) */
  upwardComplete: boolean;
}

/** The display fields a node carries beyond the walk's own (the rest of the projection). */
export interface HierarchyRowFields extends LineageRowRef {
  title: string | null;
  status: string;
  agentRoot: string | null;
  genesis: string;
  schedulingClass: string;
}

/** One node of a hierarchy, as every surface renders it (docs/concepts.md). */
export interface HierarchyNode {
  id: number;
  uid: string;
  title: string | null;
  status: string;
  /** roster key of the owner */
  owner: string | null;
  agentRoot: string | null;
  genesis: string;
  schedulingClass: string;
  depth: number;
  renderParentId: number | null;
  spawnEdge: boolean;
  /** the basis of its spawn-parent link (authenticated, delegated, declared, legacy, corrected), null without one */
  parentBasis: string | null;
  placement: Placement;
  alsoSenior: AlsoSenior[];
  hiddenSeniors: number;
  isCurrent: boolean;
  drawnUnder: DrawnUnder | null;
}

/**
 * The computed hierarchy of one session: a plain data structure every surface renders
 * (outline, JSON, the web UI's panel), so they cannot disagree.
 */
export interface Hierarchy {
  sessionId: number;
  originId: number;
  roots: number[];
  truncated: boolean;
  /** the bounds the walk ran with, for the truncation note's numbers */
  bounds: WalkBounds;
  nodes: HierarchyNode[];
}

/** Builds the hierarchy from a walk's outcome; `ownerKey` names each owner by roster key. */
export function hierarchyFromOutcome<R extends HierarchyRowFields>(
  outcome: WalkOutcome<R>,
  bounds: WalkBounds,
  ownerKey: (ownerUserId: number | null) => string | null,
): Hierarchy {
  return {
    sessionId: outcome.currentId,
    originId: outcome.originId,
    roots: outcome.roots,
    truncated: outcome.truncated,
    bounds,
    nodes: outcome.nodes.map((n) => ({
      id: n.row.id,
      uid: n.row.uid,
      title: n.row.title,
      status: n.row.status,
      owner: ownerKey(n.row.ownerUserId),
      agentRoot: n.row.agentRoot,
      genesis: n.row.genesis,
      schedulingClass: n.row.schedulingClass,
      depth: n.depth,
      renderParentId: n.renderParentId,
      spawnEdge: n.spawnEdge,
      parentBasis: n.row.parentBasis,
      placement: n.placement,
      alsoSenior: n.alsoSenior,
      hiddenSeniors: n.hiddenSeniors,
      isCurrent: n.isCurrent,
      drawnUnder: n.drawnUnder,
    })),
  };
}

/** Whether two hierarchies render identically (a live view repaints only when they do not). */
export function sameHierarchy(a: Hierarchy, b: Hierarchy): boolean {
  if (a.sessionId !== b.sessionId || a.originId !== b.originId || a.truncated !== b.truncated || a.nodes.length !== b.nodes.length) return false;
  if (a.bounds.maxDepth !== b.bounds.maxDepth || a.bounds.maxNodes !== b.bounds.maxNodes) return false;
  if (a.roots.length !== b.roots.length || a.roots.some((r, i) => r !== b.roots[i])) return false;
  for (let i = 0; i < a.nodes.length; i++) {
    const x = a.nodes[i]!;
    const y = b.nodes[i]!;
    if (
      x.id !== y.id ||
      x.uid !== y.uid ||
      x.title !== y.title ||
      x.status !== y.status ||
      x.owner !== y.owner ||
      x.agentRoot !== y.agentRoot ||
      x.genesis !== y.genesis ||
      x.schedulingClass !== y.schedulingClass ||
      x.depth !== y.depth ||
      x.renderParentId !== y.renderParentId ||
      x.spawnEdge !== y.spawnEdge ||
      x.parentBasis !== y.parentBasis ||
      x.placement !== y.placement ||
      x.hiddenSeniors !== y.hiddenSeniors ||
      x.isCurrent !== y.isCurrent ||
      x.alsoSenior.length !== y.alsoSenior.length ||
      x.alsoSenior.some((s, k) => s.id !== y.alsoSenior[k]!.id || s.basis !== y.alsoSenior[k]!.basis) ||
      !sameDrawnUnder(x.drawnUnder, y.drawnUnder)
    ) {
      return false;
    }
  }
  return true;
}

function sameDrawnUnder(a: DrawnUnder | null, b: DrawnUnder | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.reason === 'ceiling' || b.reason === 'ceiling') return a.reason === b.reason;
  if (a.uncleId !== b.uncleId || a.spawnParent.kind !== b.spawnParent.kind) return false;
  return a.spawnParent.kind !== 'in-tree' || a.spawnParent.id === (b.spawnParent as { id: number }).id;
}
