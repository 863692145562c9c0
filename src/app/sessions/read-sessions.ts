import { WarrantError } from '../../core/errors.js';
import { SESSION_STATUSES, type SessionStatus } from '../../core/lifecycle.js';
import { listSessions as listSessionRows } from '../../store/session-list-repo.js';
import { findUserByKey } from '../../store/users-repo.js';
import { listEvents as listEventRows, type EventRecord } from '../../store/events-repo.js';
import type { Executor } from '../../store/dialect/dialect.js';
import { authorize, requireSession, visibilityOf, type Visibility } from '../access.js';
import { actorIdOfFilter } from '../actor-filter.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { actorAndCause, actorViews, isHiddenSession, sessionView, sessionViews, type ActorView, type SessionView } from '../views.js';
import { decodeCursor, encodeCursor } from '../cursor.js';

export async function getSession(ctx: AppContext, caller: Caller, ref: string): Promise<SessionView> {
  const db = ctx.store.kysely;
  const session = await requireSession(db, ctx, caller, ref);
  await authorize(db, ctx, caller, 'read', session);
  return sessionView(db, ctx, session, await visibilityOf(db, ctx, caller), true);
}

interface ListSessionsInput {
  status?: string[];
  owner?: string;
  parent?: string;
  root?: boolean;
  q?: string;
  /** only the sessions this actor caused (an actor filter: core/causation.ts) */
  causedBy?: string;
  limit?: number;
  cursor?: string;
}

const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

export async function listSessions(ctx: AppContext, caller: Caller, input: ListSessionsInput): Promise<{ sessions: SessionView[]; nextCursor: string | null }> {
  const db = ctx.store.kysely;
  await authorize(db, ctx, caller, 'read', null);
  const limit = Math.min(Math.max(input.limit ?? DEFAULT_PAGE, 1), MAX_PAGE);
  const statuses = input.status?.filter((s) => s !== '') ?? [];
  for (const s of statuses) {
    if (!(SESSION_STATUSES as readonly string[]).includes(s)) {
      throw new WarrantError('invalid-request', `status: ${JSON.stringify(s)} is not one of ${SESSION_STATUSES.join(', ')}.`, { details: { field: 'status' } });
    }
  }
  const visibility = await visibilityOf(db, ctx, caller);
  let ownerUserId: number | null | undefined;
  if (input.owner !== undefined) {
    if (input.owner === '' || input.owner === 'none') ownerUserId = null;
    else {
      const user = await findUserByKey(db, input.owner);
      if (!user) return { sessions: [], nextCursor: null };
      ownerUserId = user.id;
    }
  }
  const parent = input.parent !== undefined ? await requireSession(db, ctx, caller, input.parent) : undefined;
  let causedByActorId: number | undefined;
  if (input.causedBy !== undefined) {
    const id = await actorIdOfFilter(db, ctx, visibility, input.causedBy, 'caused_by');
    // someone who never acted caused nothing
    if (id === null) return { sessions: [], nextCursor: null };
    causedByActorId = id;
  }
  const beforeId = input.cursor ? decodeCursor(input.cursor, 'sessions') : undefined;
  const rows = await listSessionRows(db, ctx.store, {
    statuses: statuses as SessionStatus[],
    ...(ownerUserId !== undefined ? { ownerUserId } : {}),
    ...(visibility === 'all' ? {} : { visibleOwners: visibility.owners }),
    ...(parent !== undefined ? { parent: { id: parent.id, uid: parent.uid } } : {}),
    rootsOnly: input.root === true,
    ...(input.q ? { text: input.q } : {}),
    ...(causedByActorId !== undefined ? { causedByActorId } : {}),
    ...(beforeId !== undefined ? { beforeId } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const views = await sessionViews(db, ctx, page, visibility, { withMetadata: false });
  // a cause reached through a creator the reader may not see is unnamed with it (docs/concepts.md),
  // so `caused_by` does not match through one; the cursor still follows the rows read
  const sessions = causedByActorId === undefined ? views : views.filter((v) => !isHiddenSession(v.creator));
  const nextCursor = rows.length > limit ? encodeCursor('sessions', page[page.length - 1]!.id) : null;
  return { sessions, nextCursor };
}

export interface EventView {
  id: number;
  sessionId: number;
  seq: number;
  type: string;
  details: Record<string, unknown>;
  actor: (ActorView & { basis: string | null }) | null;
  cause: (ActorView & { basis: string | null }) | null;
  credentialId: number | null;
  createdAt: string;
}

/** The attributed timeline, with actor and cause expanded, paginated by seq (docs/attribution.md). */
export async function listSessionEvents(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: { cursor?: string; limit?: number; types?: string[] },
): Promise<{ sessionId: number; events: EventView[]; nextCursor: string | null }> {
  const db = ctx.store.kysely;
  const session = await requireSession(db, ctx, caller, ref);
  await authorize(db, ctx, caller, 'read', session);
  const limit = Math.min(Math.max(input.limit ?? 100, 1), MAX_PAGE);
  const afterSeq = input.cursor ? decodeCursor(input.cursor, 'events') : undefined;
  const rows = await listEventRows(db, {
    sessionId: session.id,
    ...(afterSeq !== undefined ? { afterSeq } : {}),
    ...(input.types ? { types: input.types } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const events = await eventViews(db, ctx, page, await visibilityOf(db, ctx, caller));
  return { sessionId: session.id, events, nextCursor: rows.length > limit ? encodeCursor('events', page[page.length - 1]!.seq) : null };
}

/** Events as `visibility`'s reader may see them: actor and cause expanded, a hidden actor's traces dropped. */
export async function eventViews(db: Executor, ctx: AppContext, records: readonly EventRecord[], visibility: Visibility): Promise<EventView[]> {
  const actors = await actorViews(
    db,
    ctx,
    records.flatMap((e) => [e.actorId, e.causeActorId]),
    visibility,
  );
  return records.map((e) => {
    const { actor, cause } = actorAndCause(actors, e.actorId, e.causeActorId);
    return {
      id: e.id,
      sessionId: e.sessionId,
      seq: e.seq,
      type: e.type,
      details: isHiddenSession(actor) ? withoutSender(e.details) : e.details,
      actor: actor === null ? null : { ...actor, basis: e.actorBasis },
      cause: cause === null ? null : { ...cause, basis: e.causeBasis },
      credentialId: e.credentialId,
      createdAt: e.createdAt,
    };
  });
}

/**
 * An event whose actor the reader may not see keeps no trace of it in its details either:
 * `inbox_item_added` records the sender (kind, ref) and its session id at write time, a
 * declared act its `acting_session_id`.
 */
function withoutSender(details: Record<string, unknown>): Record<string, unknown> {
  const out = { ...details };
  const sender = out.sender;
  if (sender && typeof sender === 'object' && (sender as { kind?: unknown }).kind === 'session') out.sender = { ...sender, ref: null };
  // the acting session, under the names events give it
  for (const key of ['sender_session_id', 'acting_session_id']) if (key in out) out[key] = null;
  return out;
}
