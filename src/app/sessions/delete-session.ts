import { WarrantError } from '../../core/errors.js';
import { actorFilterIdentity } from '../actor-filter.js';
import type { Executor } from '../../store/dialect/dialect.js';
import { insertDeletion, insertDeletionLinks, listDeletions as listDeletionRows, type AffectedItem, type DeletionRecord } from '../../store/deletions-repo.js';
import { countEvents } from '../../store/events-repo.js';
import { humanMessageCounts } from '../../store/human-messages-repo.js';
import { deleteSessionRow, spawnChildrenOf, type SessionRecord } from '../../store/sessions-repo.js';
import { findUsersByIds } from '../../store/users-repo.js';
import { findActorId } from '../../store/actors-repo.js';
import { authorize, requireSession, visibilityOf, type Visibility } from '../access.js';
import { attributionOf, resolveActing } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { actorAndCause, actorViews, lineageParents, type ActorView } from '../views.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';
import { failMessagesToDeletedSession } from '../messages/message-settlement.js';
import { uncleEdgeDeletionCollector } from '../lineage/uncle-edges.js';
import { keyedDigest, newRecordKey } from '../audit.js';
import type { DeletionCollector } from './deletion-collector.js';

const childrenCollector: DeletionCollector = async (db, ctx, session) => {
  const children = await spawnChildrenOf(db, ctx.store, [session]);
  return {
    affected: children.map(({ child }) => ({
      kind: 'child',
      id: child.id,
      // a legacy child's row does not change; its derived parent is gone with this session
      action: child.parentBasis === 'legacy' ? 'legacy_parent_gone' : 'parent_cleared',
    })),
  };
};

const eventCountCollector: DeletionCollector = async (db, _ctx, session) => ({ counts: { events: await countEvents(db, session.id) } });

const humanMessageCollector: DeletionCollector = async (db, _ctx, session) => {
  const counts = await humanMessageCounts(db, [session.id]);
  return { counts: { humanMessages: counts.get(session.id)?.all ?? 0 } };
};

const deletionCollectors: readonly DeletionCollector[] = [childrenCollector, eventCountCollector, humanMessageCollector, uncleEdgeDeletionCollector];

/**
 * Records a delete makes elsewhere, in its own transaction, before the row goes (docs/messages.md: the
 * agent messages a deleted target can never acknowledge are `failed`, with their history).
 */
type DeletionWriter = (w: WriteScope, session: SessionRecord) => Promise<void>;

const deletionWriters: readonly DeletionWriter[] = [async (w, session) => void (await failMessagesToDeletedSession(w, session))];

/**
 * Deletes a session and writes its deletion record in the same transaction (docs/attribution.md): if the
 * record cannot be written, the delete fails. A refused delete writes nothing.
 */
export async function deleteSession(ctx: AppContext, caller: Caller, ref: string): Promise<{ deletion: DeletionView }> {
  return inWriteTx(
    ctx,
    async (w) => {
      const session = await requireSession(w.tx, ctx, caller, ref);
      await authorize(w.tx, ctx, caller, 'delete', session);
      const acting = await resolveActing(w, caller, null);
      const affected: AffectedItem[] = [];
      let events = 0;
      let humanMessages = 0;
      for (const collect of deletionCollectors) {
        const r = await collect(w.tx, ctx, session);
        affected.push(...(r.affected ?? []));
        events += r.counts?.events ?? 0;
        humanMessages += r.counts?.humanMessages ?? 0;
      }
      affected.sort((a, b) => (a.kind === b.kind ? a.id - b.id : a.kind < b.kind ? -1 : 1));
      const lineageParentId = (await lineageParents(w.tx, ctx, [session])).get(session.id) ?? null;
      const attribution = attributionOf(acting);
      const digestKey = newRecordKey(ctx.ids);
      const record: Omit<DeletionRecord, 'id'> = {
        sessionId: session.id,
        sessionUid: session.uid,
        lastTitle: session.title,
        deletedAt: w.now,
        actorId: attribution.actorId,
        actorBasis: attribution.actorBasis,
        causeActorId: attribution.causeActorId,
        causeBasis: attribution.causeBasis,
        credentialId: attribution.credentialId,
        ownerUserId: session.ownerUserId,
        lineageParentId,
        via: caller.via,
        affected,
        eventCount: events,
        humanMessageCount: humanMessages,
        digestKey,
      };
      for (const write of deletionWriters) await write(w, session);
      const id = await insertDeletion(w.tx, record);
      if (humanMessages > 0) {
        // index the sessions this record names, for their hierarchies' deleted-session gaps
        const named = new Set(affected.map((a) => a.id));
        if (lineageParentId !== null) named.add(lineageParentId);
        await insertDeletionLinks(w.tx, id, [...named]);
      }
      if (!(await deleteSessionRow(w.tx, session.id))) throw new WarrantError('session-not-found', `Session #${session.id} was deleted meanwhile.`);
      w.forget(session.id);
      for (const item of affected) if (item.kind === 'child' && item.action === 'parent_cleared') w.touch(item.id);
      // the record's words (its last title) enter the log only as a keyed digest (docs/attribution.md)
      w.audit({
        kind: 'session_deletion',
        at: w.now,
        deletion_id: id,
        session_id: session.id,
        session_uid: session.uid,
        last_title_digest: keyedDigest(digestKey, session.title ?? ''),
        owner_user_id: session.ownerUserId,
        lineage_parent_id: lineageParentId,
        actor_id: attribution.actorId,
        actor_basis: attribution.actorBasis,
        caused_by_actor_id: attribution.causeActorId,
        cause_basis: attribution.causeBasis,
        credential_id: attribution.credentialId,
        via: caller.via,
        affected,
        event_count: events,
        human_message_count: humanMessages,
      });
      w.live({ type: 'session_deleted', sessionId: session.id, ownerUserId: session.ownerUserId, payload: { id: session.id, uid: session.uid } });
      const [view] = await deletionViews(w.tx, ctx, [{ ...record, id }], await visibilityOf(w.tx, ctx, caller));
      return { deletion: view! };
    },
    { graph: true },
  );
}

export interface DeletionView extends Omit<DeletionRecord, 'actorId' | 'causeActorId' | 'ownerUserId' | 'digestKey'> {
  actor: (ActorView & { basis: string | null }) | null;
  cause: (ActorView & { basis: string | null }) | null;
  owner: string | null;
}

async function deletionViews(db: Executor, ctx: AppContext, records: DeletionRecord[], visibility: Visibility): Promise<DeletionView[]> {
  const actors = await actorViews(
    db,
    ctx,
    records.flatMap((r) => [r.actorId, r.causeActorId]),
    visibility,
  );
  const owners = await findUsersByIds(
    db,
    records.map((r) => r.ownerUserId).filter((o): o is number => o !== null),
  );
  return records.map(({ actorId, causeActorId, ownerUserId, digestKey: _key, ...rest }) => {
    const { actor, cause } = actorAndCause(actors, actorId, causeActorId);
    return {
      ...rest,
      actor: actor === null ? null : { ...actor, basis: rest.actorBasis },
      cause: cause === null ? null : { ...cause, basis: rest.causeBasis },
      owner: ownerUserId === null ? null : (owners.get(ownerUserId)?.key ?? null),
    };
  });
}

interface DeletionListInput {
  actor?: string; // a roster key, `session:<id>`, `client:<name>`, `fleet` or `system`
  since?: string;
  until?: string;
  sessionUid?: string;
  cursor?: string;
  limit?: number;
}

/** `GET /api/v1/session_deletions`: filtered by actor, time range and uid, and by visibility. */
export async function listDeletions(
  ctx: AppContext,
  caller: Caller,
  input: DeletionListInput,
): Promise<{ deletions: DeletionView[]; nextCursor: string | null }> {
  const db = ctx.store.kysely;
  await authorize(db, ctx, caller, 'read', null);
  const visibility = await visibilityOf(db, ctx, caller);
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  let actorIds: number[] | undefined;
  if (input.actor !== undefined) {
    const identity = await actorFilterIdentity(db, input.actor);
    actorIds = [];
    const id = identity ? await findActorId(db, identity) : null;
    if (id !== null) actorIds.push(id);
  }
  for (const [field, value] of [
    ['since', input.since],
    ['until', input.until],
  ] as const) {
    if (value !== undefined && Number.isNaN(Date.parse(value))) {
      throw new WarrantError('invalid-request', `${field}: not an ISO 8601 time.`, { details: { field } });
    }
  }
  // an actor that never acted has deleted nothing (and `in ()` is not SQL)
  if (actorIds && actorIds.length === 0) return { deletions: [], nextCursor: null };
  const rows = await listDeletionRows(db, {
    ...(actorIds ? { actorIds } : {}),
    ...(input.since ? { since: new Date(input.since).toISOString() } : {}),
    ...(input.until ? { until: new Date(input.until).toISOString() } : {}),
    ...(input.sessionUid ? { sessionUid: input.sessionUid.toLowerCase() } : {}),
    ...(visibility === 'all' ? {} : { visibleOwners: visibility.owners }),
    ...(input.cursor ? { beforeId: decodeCursor(input.cursor, 'deletions') } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  return {
    deletions: await deletionViews(db, ctx, page, await visibilityOf(db, ctx, caller)),
    nextCursor: rows.length > limit ? encodeCursor('deletions', page[page.length - 1]!.id) : null,
  };
}
