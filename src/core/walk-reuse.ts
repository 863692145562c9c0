import type { LineageRowRef, WalkOutcome } from './hierarchy-types.js';

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
