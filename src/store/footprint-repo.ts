import type { Executor } from './dialect/dialect.js';
import { toEvent, type EventRecord } from './events-repo.js';
import { ownerVisible } from './owner-visibility.js';

interface EventFilter {
  /** each filter given narrows the list; at least one is required by the use case */
  actorId?: number;
  causeActorId?: number;
  credentialId?: number;
  /** restrict to events on sessions visible to a scoped caller: these owners (null = unowned) */
  visibleOwners?: (number | null)[];
  beforeId?: number;
  limit: number;
}

/**
 * Events across every session by actor, cause and credential, newest first (by event id, which
 * only grows): one index range per filter (migration 017), the session row for visibility.
 */
export async function listEventsAcrossSessions(db: Executor, f: EventFilter): Promise<EventRecord[]> {
  let q = db
    .selectFrom('session_events as e')
    .innerJoin('sessions as s', 's.id', 'e.session_id')
    .select([
      'e.id',
      'e.session_id',
      'e.seq',
      'e.type',
      'e.details',
      'e.actor_id',
      'e.actor_basis',
      'e.caused_by_actor_id',
      'e.cause_basis',
      'e.credential_id',
      'e.created_at',
      'e.digest_key',
    ]);
  if (f.actorId !== undefined) q = q.where('e.actor_id', '=', f.actorId);
  if (f.causeActorId !== undefined) q = q.where('e.caused_by_actor_id', '=', f.causeActorId);
  if (f.credentialId !== undefined) q = q.where('e.credential_id', '=', f.credentialId);
  if (f.visibleOwners) q = q.where(ownerVisible('s.owner_user_id', f.visibleOwners));
  if (f.beforeId !== undefined) q = q.where('e.id', '<', f.beforeId);
  const rows = await q.orderBy('e.id', 'desc').limit(f.limit).execute();
  return rows.map((r) => toEvent(r));
}
