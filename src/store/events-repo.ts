import type { ActBasis } from '../core/basis.js';
import type { Insertable } from 'kysely';
import { compiledForRows } from './compiled-once.js';
import type { Database } from './database.js';
import type { Executor } from './dialect/dialect.js';
import { nextEventSeq } from './sessions-repo.js';

export interface EventAttribution {
  actorId: number | null;
  actorBasis: ActBasis | null;
  causeActorId: number | null;
  causeBasis: ActBasis | null;
  credentialId: number | null;
}

export interface EventRecord extends EventAttribution {
  id: number;
  sessionId: number;
  seq: number;
  type: string;
  details: Record<string, unknown>;
  createdAt: string;
  /** the per-record key of the details digest in the audit log (docs/attribution.md); null for runtime state */
  digestKey: string | null;
}

interface NewEvent {
  sessionId: number;
  /** already taken (a session inserted in this transaction with its first seq); else the next */
  seq?: number | undefined;
  type: string;
  details: Record<string, unknown>;
  /** the details as stored, when the caller has them as text already (canonical JSON for evidence); else JSON.stringify */
  detailsText?: string | undefined;
  attribution: EventAttribution;
  now: string;
  digestKey: string | null;
}

const insertEventRows = compiledForRows((db, rows: readonly Insertable<Database['session_events']>[]) =>
  db.insertInto('session_events').values(rows).returning(['id', 'session_id', 'seq']),
);

/**
 * Events in one insert, after each takes its session's next seq in the given order (each seq
 * locks its session's row: the caller orders them), unless it comes with its seq. In `events`' order.
 */
export async function insertEvents(db: Executor, events: readonly NewEvent[]): Promise<EventRecord[]> {
  if (events.length === 0) return [];
  const seqs: number[] = [];
  for (const e of events) seqs.push(e.seq ?? (await nextEventSeq(db, e.sessionId)));
  const rows = await insertEventRows(
    db,
    events.map((e, i) => ({
      session_id: e.sessionId,
      seq: seqs[i]!,
      type: e.type,
      details: e.detailsText ?? JSON.stringify(e.details),
      actor_id: e.attribution.actorId,
      actor_basis: e.attribution.actorBasis,
      caused_by_actor_id: e.attribution.causeActorId,
      cause_basis: e.attribution.causeBasis,
      credential_id: e.attribution.credentialId,
      created_at: e.now,
      digest_key: e.digestKey,
    })),
  );
  // (session, seq) is unique: the returned rows' order is not relied on
  const ids = new Map(rows.map((r) => [`${Number(r.session_id)}:${Number(r.seq)}`, Number(r.id)]));
  return events.map((e, i) => ({
    id: ids.get(`${e.sessionId}:${seqs[i]}`)!,
    sessionId: e.sessionId,
    seq: seqs[i]!,
    type: e.type,
    details: e.details,
    ...e.attribution,
    createdAt: e.now,
    digestKey: e.digestKey,
  }));
}

type EventRow = {
  id: number;
  session_id: number;
  seq: number;
  type: string;
  details: string;
  actor_id: number | null;
  actor_basis: string | null;
  caused_by_actor_id: number | null;
  cause_basis: string | null;
  credential_id: number | null;
  created_at: string;
  digest_key: string | null;
};

export function toEvent(r: EventRow): EventRecord {
  let details: Record<string, unknown> = {};
  try {
    details = JSON.parse(r.details) as Record<string, unknown>;
  } catch {
    details = {};
  }
  return {
    id: Number(r.id),
    sessionId: Number(r.session_id),
    seq: Number(r.seq),
    type: r.type,
    details,
    actorId: r.actor_id === null ? null : Number(r.actor_id),
    actorBasis: r.actor_basis as ActBasis | null,
    causeActorId: r.caused_by_actor_id === null ? null : Number(r.caused_by_actor_id),
    causeBasis: r.cause_basis as ActBasis | null,
    credentialId: r.credential_id === null ? null : Number(r.credential_id),
    createdAt: r.created_at,
    digestKey: r.digest_key,
  };
}

export async function listEvents(db: Executor, f: { sessionId: number; afterSeq?: number; types?: string[]; limit: number }): Promise<EventRecord[]> {
  let q = db
    .selectFrom('session_events')
    .select(['id', 'session_id', 'seq', 'type', 'details', 'actor_id', 'actor_basis', 'caused_by_actor_id', 'cause_basis', 'credential_id', 'created_at'])
    .where('session_id', '=', f.sessionId);
  if (f.afterSeq !== undefined) q = q.where('seq', '>', f.afterSeq);
  if (f.types && f.types.length > 0) q = q.where('type', 'in', f.types);
  const rows = await q.orderBy('seq').limit(f.limit).execute();
  return rows.map((r) => toEvent(r as EventRow));
}

export async function countEvents(db: Executor, sessionId: number, type?: string): Promise<number> {
  let q = db
    .selectFrom('session_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('session_id', '=', sessionId);
  if (type) q = q.where('type', '=', type);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}
