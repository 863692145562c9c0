import type { Executor } from '../store/dialect/dialect.js';
import { findUsersByIds, type UserRecord } from '../store/users-repo.js';

/** Roster rows by id: the store read, or a per-request memo of it. */
export type UsersByIds = (ids: readonly number[]) => Promise<Map<number, UserRecord>>;

export function usersByIds(db: Executor): UsersByIds {
  return (ids) => findUsersByIds(db, ids);
}

/**
 * A memo of roster reads for ONE request (never shared across requests: roster rows change —
 * renames, notes, removals). A read that renders a session view, the hierarchy's owners and
 * the human messages' authors usually names the same few users several times; each is read
 * once, and reads made concurrently share the query in flight.
 */
export function memoizedUsersByIds(db: Executor): UsersByIds {
  const known = new Map<number, Promise<UserRecord | undefined>>();
  return async (ids) => {
    const wanted = [...new Set(ids)];
    const missing = wanted.filter((id) => !known.has(id));
    if (missing.length > 0) {
      const read = findUsersByIds(db, missing);
      for (const id of missing) {
        const one = read.then((users) => users.get(id));
        // awaited below (or by a later call); this only keeps a failure from being reported twice
        one.catch(() => {});
        known.set(id, one);
      }
    }
    const out = new Map<number, UserRecord>();
    for (const id of wanted) {
      const user = await known.get(id)!;
      if (user) out.set(id, user);
    }
    return out;
  };
}
