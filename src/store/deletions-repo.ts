import { sql } from 'kysely';
import type { ActBasis } from '../core/basis.js';
import type { Executor } from './dialect/dialect.js';
import { ownerVisible } from './owner-visibility.js';
import { compiledOnce, inIdList } from './compiled-once.js';

export interface AffectedItem {
  kind: string;
  id: number;
  action: string;
  [key: string]: unknown;
}

export interface DeletionRecord {
  id: number;
  sessionId: number;
  sessionUid: string;
  lastTitle: string | null;
  deletedAt: string;
  actorId: number | null;
  actorBasis: ActBasis | null;
  causeActorId: number | null;
  causeBasis: ActBasis | null;
  credentialId: number | null;
  ownerUserId: number | null;
  lineageParentId: number | null;
  via: string;
  affected: AffectedItem[];
  eventCount: number;
  humanMessageCount: number;
  /** the key of the last-title digest in the audit entry (docs/attribution.md) */
  digestKey: string | null;
}

export async function insertDeletion(db: Executor, r: Omit<DeletionRecord, 'id'>): Promise<number> {
  const row = await db
    .insertInto('session_deletions')
    .values({
      session_id: r.sessionId,
      session_uid: r.sessionUid,
      last_title: r.lastTitle,
      deleted_at: r.deletedAt,
      actor_id: r.actorId,
      actor_basis: r.actorBasis,
      caused_by_actor_id: r.causeActorId,
      cause_basis: r.causeBasis,
      credential_id: r.credentialId,
      owner_user_id: r.ownerUserId,
      lineage_parent_id: r.lineageParentId,
      via: r.via,
      affected: JSON.stringify(r.affected),
      event_count: r.eventCount,
      human_message_count: r.humanMessageCount,
      digest_key: r.digestKey,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

type Row = {
  id: number;
  session_id: number;
  session_uid: string;
  last_title: string | null;
  deleted_at: string;
  actor_id: number | null;
  actor_basis: string | null;
  caused_by_actor_id: number | null;
  cause_basis: string | null;
  credential_id: number | null;
  owner_user_id: number | null;
  lineage_parent_id: number | null;
  via: string;
  affected: string;
  event_count: number;
  human_message_count: number;
  digest_key: string | null;
};

function toRecord(r: Row): DeletionRecord {
  const n = (v: number | null) => (v === null ? null : Number(v));
  return {
    id: Number(r.id),
    sessionId: Number(r.session_id),
    sessionUid: r.session_uid,
    lastTitle: r.last_title,
    deletedAt: r.deleted_at,
    actorId: n(r.actor_id),
    actorBasis: r.actor_basis as ActBasis | null,
    causeActorId: n(r.caused_by_actor_id),
    causeBasis: r.cause_basis as ActBasis | null,
    credentialId: n(r.credential_id),
    ownerUserId: n(r.owner_user_id),
    lineageParentId: n(r.lineage_parent_id),
    via: r.via,
    affected: JSON.parse(r.affected) as AffectedItem[],
    eventCount: Number(r.event_count),
    humanMessageCount: Number(r.human_message_count),
    digestKey: r.digest_key,
  };
}

/** Indexes the sessions a deletion record names, for their hierarchies' deleted-session gaps. */
export async function insertDeletionLinks(db: Executor, deletionId: number, sessionIds: readonly number[]): Promise<void> {
  if (sessionIds.length === 0) return;
  await db
    .insertInto('deletion_links')
    .values(sessionIds.map((sessionId) => ({ session_id: sessionId, deletion_id: deletionId })))
    .execute();
}

const deletionsNamingRows = compiledOnce((db, p: { sessionIds: readonly number[] }, dialect) =>
  db
    .selectFrom('deletion_links as l')
    .innerJoin('session_deletions as d', 'd.id', 'l.deletion_id')
    .select(['l.session_id as named', 'd.session_id', 'd.human_message_count'])
    .where(inIdList(dialect, 'l.session_id', p.sessionIds))
    .orderBy('d.session_id'),
);

/** Deletion records that name any of `sessionIds` (deletion_links), with the deleted session and its message count. */
export async function deletionsNaming(db: Executor, sessionIds: readonly number[]): Promise<{ named: number; sessionId: number; humanMessageCount: number }[]> {
  if (sessionIds.length === 0) return [];
  const rows = await deletionsNamingRows(db, { sessionIds: [...new Set(sessionIds)] });
  return rows.map((r) => ({ named: Number(r.named), sessionId: Number(r.session_id), humanMessageCount: Number(r.human_message_count) }));
}

/** When each of `sessionIds` was deleted (sessions with no deletion record are absent). */
export async function deletionTimes(db: Executor, sessionIds: readonly number[]): Promise<Map<number, string>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('session_deletions')
    .select(['session_id', 'deleted_at'])
    .where('session_id', 'in', [...new Set(sessionIds)])
    .execute();
  return new Map(rows.map((r) => [Number(r.session_id), r.deleted_at]));
}

interface DeletionFilter {
  actorIds?: number[];
  since?: string;
  until?: string;
  sessionUid?: string;
  visibleOwners?: (number | null)[];
  beforeId?: number;
  limit: number;
}

export async function listDeletions(db: Executor, f: DeletionFilter): Promise<DeletionRecord[]> {
  let q = db.selectFrom('session_deletions').selectAll();
  if (f.actorIds) q = f.actorIds.length > 0 ? q.where('actor_id', 'in', f.actorIds) : q.where(sql<boolean>`1 = 0`);
  if (f.since) q = q.where('deleted_at', '>=', f.since);
  if (f.until) q = q.where('deleted_at', '<', f.until);
  if (f.sessionUid) q = q.where('session_uid', '=', f.sessionUid);
  if (f.visibleOwners) q = q.where(ownerVisible('owner_user_id', f.visibleOwners));
  if (f.beforeId !== undefined) q = q.where('id', '<', f.beforeId);
  const rows = await q.orderBy('id', 'desc').limit(f.limit).execute();
  return rows.map((r) => toRecord(r));
}
