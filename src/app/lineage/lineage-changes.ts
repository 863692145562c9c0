import type { WriteScope } from '../write-scope.js';
import { LINEAGE_CHANGED } from '../../core/lineage-change.js';

/**
 * A change to the lineage graph, announced inside the transaction that made it. It becomes an
 * internal live event (never forwarded on the SSE stream) from which the live hierarchy
 * refresh (docs/concepts.md) learns, after commit and off the request path, which
 * components to recompute; the graph writers never walk hierarchies themselves.
 */
interface LineageChange {
  kind: 'uncle_linked' | 'uncle_inverted' | 'uncle_removed' | 'parent_changed';
  /**
   * every session whose senior or junior set changed, the junior end first (the child of a
   * correction, the junior of an uncle edge): the broadcast refresh walks from the first and
   * skips the others its walk already covers (lineageChangeOf)
   */
  sessionIds: number[];
}

export function announceLineageChange(w: WriteScope, change: LineageChange): void {
  const ids = [...new Set(change.sessionIds)];
  w.live({ type: LINEAGE_CHANGED, sessionId: ids[0] ?? null, ownerUserId: null, payload: { session_ids: ids, change: change.kind } });
}
