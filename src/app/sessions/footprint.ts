import { listEventsAcrossSessions } from '../../store/footprint-repo.js';
import { authorize, visibilityOf } from '../access.js';
import { actorIdOfFilter } from '../actor-filter.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { isHiddenSession } from '../views.js';
import { eventViews, MAX_PAGE, type EventView } from './read-sessions.js';

interface EventsAcrossInput {
  /** an actor filter: who acted (app/actor-filter.ts) */
  actor?: string;
  /** an actor filter: on whose behalf */
  cause?: string;
  /** a credential id: every act made with that token */
  credential?: number;
  cursor?: string;
  limit?: number;
}

const DEFAULT_EVENTS_PAGE = 100;

/**
 * `GET /api/v1/events` (docs/attribution.md "What a person caused"): events across every
 * session the caller may see, by actor, cause and credential (the filters combine; with none,
 * every event the caller may see), newest first. A revoked or leaked token's whole footprint is
 * `credential=<id>`; events whose session was deleted went with it (its deletion record
 * remains, `GET /api/v1/session_deletions`).
 */
export async function listEventsAcross(ctx: AppContext, caller: Caller, input: EventsAcrossInput): Promise<{ events: EventView[]; nextCursor: string | null }> {
  const db = ctx.store.kysely;
  await authorize(db, ctx, caller, 'read', null);
  const limit = Math.min(Math.max(input.limit ?? DEFAULT_EVENTS_PAGE, 1), MAX_PAGE);
  const beforeId = input.cursor ? decodeCursor(input.cursor, 'events-across') : undefined;
  const visibility = await visibilityOf(db, ctx, caller);
  const actorId = input.actor === undefined ? undefined : await actorIdOfFilter(db, ctx, visibility, input.actor, 'actor');
  const causeActorId = input.cause === undefined ? undefined : await actorIdOfFilter(db, ctx, visibility, input.cause, 'cause');
  // a filter naming nobody who ever acted matches nothing
  if (actorId === null || causeActorId === null) return { events: [], nextCursor: null };
  const rows = await listEventsAcrossSessions(db, {
    ...(actorId !== undefined ? { actorId } : {}),
    ...(causeActorId !== undefined ? { causeActorId } : {}),
    ...(input.credential !== undefined ? { credentialId: input.credential } : {}),
    ...(visibility === 'all' ? {} : { visibleOwners: visibility.owners }),
    ...(beforeId !== undefined ? { beforeId } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const views = await eventViews(db, ctx, page, visibility);
  // docs/concepts.md: the cause reached through a session the reader may not see is unnamed
  // with it — so a cause filter must not match through one either (it would name its owner).
  // The page may come out shorter; the cursor still follows the rows read.
  const events = input.cause === undefined ? views : views.filter((e) => !isHiddenSession(e.actor));
  return { events, nextCursor: rows.length > limit ? encodeCursor('events-across', page[page.length - 1]!.id) : null };
}
