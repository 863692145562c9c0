/**
 * The live event graph writers emit, inside the transaction that changes an edge, for every
 * change the session events do not already carry: an uncle edge written, inverted or
 * removed, a parent corrected. Payload `{session_ids: [...]}`: every session whose edges
 * changed (both ends of an uncle edge; the child, old and new parent of a correction).
 * It is a wake-up for the refresh and the walk cache, not an SSE event: the stream does not forward it.
 */
export const LINEAGE_CHANGED = 'lineage_changed';

/**
 * What a live event changed in the lineage graph (docs/concepts.md): the sessions whose row or
 * edges changed, and those deleted. The live refresh re-walks views that read them; a write
 * bumps their walk-cache versions in its own transaction. Both the parent column and the
 * lineage parent are named, since a scoped payload may hide the lineage parent.
 */
export function lineageChangeOf(
  type: string,
  payload: Record<string, unknown>,
): {
  /** junior end first (a created or updated session before its parents, the junior of an edge first): the broadcast refresh walks from it */
  changed: number[];
  deleted: number[];
  /**
   * true when the event changed only the named sessions' rows, never an edge by itself: every
   * edge change (a create, a deletion, an uncle edge, a parent correction) has its own event
   */
  rowsOnly: boolean;
} {
  const ids = (values: unknown[]): number[] => values.filter((v): v is number => typeof v === 'number' && Number.isSafeInteger(v));
  switch (type) {
    case 'session_created': {
      // a new session changes a view only through the parent it hangs from
      const s = (payload.session ?? {}) as Record<string, unknown>;
      return {
        changed: s.lineage_parent_id == null && s.parent_session_id == null ? [] : ids([s.id, s.lineage_parent_id, s.parent_session_id]),
        deleted: [],
        rowsOnly: false,
      };
    }
    case 'session_updated': {
      // a title or status of a node (the refresh's fingerprint tells a starred flag from a real change)
      const s = (payload.session ?? {}) as Record<string, unknown>;
      return { changed: ids([s.id, s.lineage_parent_id, s.parent_session_id]), deleted: [], rowsOnly: true };
    }
    case 'session_deleted':
      return { changed: [], deleted: ids([payload.id]), rowsOnly: false };
    case LINEAGE_CHANGED:
      return { changed: ids(Array.isArray(payload.session_ids) ? payload.session_ids : []), deleted: [], rowsOnly: false };
    default:
      return { changed: [], deleted: [], rowsOnly: true };
  }
}
