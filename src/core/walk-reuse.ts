import { spawnParentRef } from './legacy-parent-key.js';
import { ownerVisible, type LineageRowRef, type OwnerFilter, type WalkOutcome } from './hierarchy-types.js';

/** The row fields the walk decides with (edges, visibility); the rest only fills the nodes in. */
function sameWalkFields(a: LineageRowRef, b: LineageRowRef): boolean {
  return (
    a.id === b.id &&
    a.uid === b.uid &&
    a.ownerUserId === b.ownerUserId &&
    a.parentSessionId === b.parentSessionId &&
    a.parentBasis === b.parentBasis &&
    a.legacyParentKey === b.legacyParentKey
  );
}

/**
 * A walk's outcome after a change that touched only sessions' rows, never an edge
 * (lineageChangeOf's `rowsOnly`): the same outcome with the new rows in its nodes, when
 * every touched session is a node of it whose walk fields are unchanged — the walk would
 * decide exactly as before. Null when it must walk again: a touched session it did not
 * show (its old row is unknown here, so a moved parent key could not be told), one that is
 * gone, or one whose owner or parent changed.
 */
export function outcomeWithNewRows<R extends LineageRowRef>(
  outcome: WalkOutcome<R>,
  touched: Iterable<number>,
  newRows: ReadonlyMap<number, R>,
): WalkOutcome<R> | null {
  const replaced = new Map<number, R>();
  const shown = new Map(outcome.nodes.map((n) => [n.row.id, n.row]));
  for (const id of touched) {
    const before = shown.get(id);
    const after = newRows.get(id);
    if (!before || !after || !sameWalkFields(before, after)) return null;
    replaced.set(id, after);
  }
  return { ...outcome, nodes: outcome.nodes.map((n) => (replaced.has(n.row.id) ? { ...n, row: replaced.get(n.row.id)! } : n)) };
}

/**
 * Whether a walk from `id`, with the same owner filter and bounds, could show only sessions
 * `outcome` already shows — so a union of walks (the broadcast form of a live refresh) needs
 * no walk from `id` once it holds `outcome`. True when `outcome` left nothing out and `id` is
 * one of its upward sessions: then every senior of `id`, and theirs, is upward in `outcome`
 * too, and every junior of a shown session is shown, so the walk from `id` (which climbs from
 * `id` and then descends) cannot leave the set. test/core/walk-reuse.test.ts checks it
 * against real walks on random graphs.
 */
export function walkFromStaysWithin<R extends LineageRowRef>(outcome: WalkOutcome<R>, id: number): boolean {
  return !outcome.truncated && outcome.upwardComplete && outcome.upward.has(id);
}

/**
 * What one complete walk proves about the component it showed, so that the walk from any
 * session of it can be told without walking it (`outcomeSeenFrom`). A live refresh walks one
 * viewer of a component and tells the others from it: 150 viewers of one lineage cost one
 * walk after an edge change, not 150.
 */
export interface ClosedComponent<R> {
  /** the walk it was read off */
  outcome: WalkOutcome<R>;
  /** each shown session's visible seniors (its spawn parent, its uncles): every one is shown */
  seniors: ReadonlyMap<number, readonly number[]>;
  maxDepth: number;
}

/**
 * The component of a walk (run with `owners`) when it is closed and single-rooted, else null
 * (walk each viewer):
 * - every session it shows is one the reader may see (a walk shows its own session even when
 *   it may not, and that session's juniors would then hang from nothing);
 * - the walk left nothing out and its upward pass was complete;
 * - it has one root, the origin, no ceiling-placed node and none deeper than maxDepth (an
 *   upward node can be: its depth is its distance from the root, which the downward pass of
 *   a walk from the root would not reach);
 * - every visible uncle of every shown session is shown (no hidden seniors);
 * - every shown session but the root has its spawn parent shown.
 *
 * Why the walk from any shown session T then shows the same thing, with T marked current
 * (docs/design/lineage.md; test/core/walk-reuse.test.ts checks it against real walks on
 * random graphs): the shown set N is closed under visible seniors and, left untruncated,
 * under juniors, and every session of it hangs from the root r. T's upward pass reaches
 * exactly T's ancestors, all in N, r among them — complete when none is more than maxDepth
 * levels above T, which `outcomeSeenFrom` checks. T's spawn chain runs up through shown
 * parents (each older than its child) to r, the one shown session without a shown spawn
 * parent, so r is T's origin; and r is the only ancestor with no senior reached, so the only
 * root. Every depth is then the shortest distance from r (the ancestors of a node are all
 * upward, so the upward depths are; the downward levels are a breadth-first search from
 * them), the downward pass admits the rest of N (it fits: this walk admitted all of it), and
 * every choice the layout makes — the edge a node is drawn from, its chips, the order — is
 * taken from depths, edges and ids alone, all the same as here.
 */
export function closedComponentOf<R extends LineageRowRef>(outcome: WalkOutcome<R>, owners: OwnerFilter, maxDepth: number): ClosedComponent<R> | null {
  // one root follows from the parents below: every other shown session hangs from a shown spawn parent
  if (outcome.truncated || !outcome.upwardComplete) return null;
  const shown = new Set<number>();
  const byUid = new Map<string, number>();
  for (const n of outcome.nodes) {
    shown.add(n.row.id);
    byUid.set(n.row.uid, n.row.id);
  }
  const seniors = new Map<number, number[]>();
  for (const n of outcome.nodes) {
    if (n.placement === 'ceiling' || n.hiddenSeniors > 0 || n.depth > maxDepth || !ownerVisible(owners, n.row.ownerUserId)) return null;
    const parent = spawnParentOf(n.row, byUid);
    const list = n.alsoSenior.map((s) => s.id);
    const parentShown = typeof parent === 'number' && shown.has(parent);
    // every session but the root has its spawn parent shown; the root has none shown (a parent its
    // row names is one no walk climbs to — hidden, gone or younger — or the complete walk would have)
    if (parentShown !== (n.row.id !== outcome.originId)) return null;
    if (parentShown) list.push(parent);
    seniors.set(n.row.id, list);
  }
  return { outcome, seniors, maxDepth };
}

/**
 * The walk from `viewerId` told from a closed component it belongs to (see `closedComponentOf`):
 * the component's outcome with `viewerId` current, its own upward set, and the component's
 * footprint (which holds everything the walk from `viewerId` would read). Null when it is not a
 * shown session or an ancestor lies more than maxDepth levels above it (its walk would be cut off).
 */
export function outcomeSeenFrom<R extends LineageRowRef>(component: ClosedComponent<R>, viewerId: number): WalkOutcome<R> | null {
  const { outcome, seniors, maxDepth } = component;
  if (!seniors.has(viewerId)) return null;
  const upward = new Set<number>([viewerId]);
  let level = [viewerId];
  for (let k = 0; level.length > 0; k++) {
    const next: number[] = [];
    for (const id of level) {
      for (const s of seniors.get(id)!) {
        if (upward.has(s)) continue;
        if (k === maxDepth) return null;
        upward.add(s);
        next.push(s);
      }
    }
    level = next;
  }
  if (viewerId === outcome.currentId) return outcome;
  return {
    ...outcome,
    currentId: viewerId,
    upward,
    nodes: outcome.nodes.map((n) => (n.isCurrent || n.row.id === viewerId ? { ...n, isCurrent: n.row.id === viewerId } : n)),
  };
}

/**
 * A row's spawn parent as the seniors read resolves it (only an older session is a parent): its
 * id, null for none, 'unshown' for a uid key naming no shown session.
 */
function spawnParentOf(row: LineageRowRef, shownByUid: ReadonlyMap<string, number>): number | null | 'unshown' {
  const ref = spawnParentRef(row);
  if (ref === null) return null;
  const parent = ref.kind === 'id' ? ref.id : shownByUid.get(ref.uid);
  if (parent === undefined) return 'unshown';
  return parent < row.id ? parent : null;
}
