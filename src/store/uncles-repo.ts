import type { UncleBasis } from '../core/uncle-edge-rules.js';
import type { Executor } from './dialect/dialect.js';

/**
 * The rows of `session_uncles`. Reading edges for lineage goes through `juniorsOf` /
 * `seniorsOf` (lineage-repo.ts); these are the writes, and the lookups of one edge by its
 * exact pair that writing and removing need.
 */
export interface UncleEdgeRecord {
  /** the junior (B) */
  sessionId: number;
  /** the senior (A) */
  uncleSessionId: number;
  source: string;
  basis: UncleBasis;
  recordedByActorId: number | null;
  createdAt: string;
}

type Row = { session_id: number; uncle_session_id: number; source: string; basis: string; recorded_by_actor_id: number | null; created_at: string };

function toRecord(r: Row): UncleEdgeRecord {
  return {
    sessionId: Number(r.session_id),
    uncleSessionId: Number(r.uncle_session_id),
    source: r.source,
    basis: r.basis as UncleBasis,
    recordedByActorId: r.recorded_by_actor_id === null ? null : Number(r.recorded_by_actor_id),
    createdAt: r.created_at,
  };
}

/** The edge uncle → junior, exactly that direction. */
export async function findUncleEdge(db: Executor, juniorId: number, uncleId: number): Promise<UncleEdgeRecord | null> {
  const row = await db.selectFrom('session_uncles').selectAll().where('session_id', '=', juniorId).where('uncle_session_id', '=', uncleId).executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function insertUncleEdge(db: Executor, edge: UncleEdgeRecord): Promise<void> {
  await db
    .insertInto('session_uncles')
    .values({
      session_id: edge.sessionId,
      uncle_session_id: edge.uncleSessionId,
      source: edge.source,
      basis: edge.basis,
      recorded_by_actor_id: edge.recordedByActorId,
      created_at: edge.createdAt,
    })
    .execute();
}

export async function deleteUncleEdge(db: Executor, juniorId: number, uncleId: number): Promise<boolean> {
  const r = await db.deleteFrom('session_uncles').where('session_id', '=', juniorId).where('uncle_session_id', '=', uncleId).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** Every edge with the session at either end (a delete takes them with it). */
export async function uncleEdgesTouching(db: Executor, sessionId: number): Promise<UncleEdgeRecord[]> {
  const rows = await db
    .selectFrom('session_uncles')
    .selectAll()
    .where((eb) => eb.or([eb('session_id', '=', sessionId), eb('uncle_session_id', '=', sessionId)]))
    .execute();
  return rows.map((r) => toRecord(r));
}
