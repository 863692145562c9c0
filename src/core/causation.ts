/**
 * docs/attribution.md "What a person caused": the one definition of which sessions an actor
 * (usually a human) caused. The store answers it with a bounded recursive query over the same
 * facts; a test holds the query to this function on both dialects.
 *
 * A session was caused by the actor when
 *  1. directly: its recorded cause is the actor, or the actor created it; or
 *  2. through the sessions they caused: its creator is a session the actor caused (a spawn
 *     with a session token, or a fleet create declaring that session as `acting_session_id` —
 *     wherever the new session sits, another tree included).
 *
 * Spawn parents alone are not followed: a session another human creates under someone's tree
 * is that human's act, not theirs. Work queued onto an existing session (an enqueue, a
 * follow-up, an agent message) does not make that session caused by the actor; the act itself
 * is an event whose cause is the actor, and the events list finds it (`cause=`).
 */

/** How many creator hops below a directly caused session are followed (the query's bound). */
export const CAUSATION_MAX_DEPTH = 64;

/** The facts of one session the rule reads. */
export interface CausationFacts {
  id: number;
  /** the actor id of the session's recorded cause */
  causeActorId: number | null;
  /** the actor id of its creator */
  creatorActorId: number | null;
  /** the creator, when the creator is a session: its session id */
  creatorSessionId: number | null;
}

/** Rule 1: the session is the actor's own, directly. */
export function directlyCausedBy(session: CausationFacts, actorId: number): boolean {
  return session.causeActorId === actorId || session.creatorActorId === actorId;
}

/**
 * The ids of the sessions `actorId` caused, among `sessions`.
 *
 * @example
 * causedSessionIds(7, [
 *   { id: 1, causeActorId: 7, creatorActorId: 7, creatorSessionId: null },   // alice's router
 *   { id: 2, causeActorId: null, creatorActorId: 30, creatorSessionId: 1 },  // spawned by it
 *   { id: 3, causeActorId: 8, creatorActorId: 8, creatorSessionId: null },   // bob's
 * ]) // → Set {1, 2}
 */
export function causedSessionIds(actorId: number, sessions: readonly CausationFacts[], maxDepth = CAUSATION_MAX_DEPTH): Set<number> {
  const byCreator = new Map<number, CausationFacts[]>();
  for (const s of sessions) {
    if (s.creatorSessionId === null) continue;
    const list = byCreator.get(s.creatorSessionId) ?? [];
    list.push(s);
    byCreator.set(s.creatorSessionId, list);
  }
  const caused = new Set<number>();
  let frontier = sessions.filter((s) => directlyCausedBy(s, actorId));
  for (const s of frontier) caused.add(s.id);
  for (let depth = 0; depth < maxDepth && frontier.length > 0; depth++) {
    const next: CausationFacts[] = [];
    for (const s of frontier) {
      for (const child of byCreator.get(s.id) ?? []) {
        if (caused.has(child.id)) continue;
        caused.add(child.id);
        next.push(child);
      }
    }
    frontier = next;
  }
  return caused;
}
