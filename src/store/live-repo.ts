import type { Executor } from './dialect/dialect.js';

export interface LiveEventRecord {
  id: number;
  type: string;
  sessionId: number | null;
  ownerUserId: number | null;
  payload: Record<string, unknown>;
  createdAt: string;
}

/**
 * Takes the next live-event id from the counter row. The row lock (PostgreSQL) or the single
 * writer (SQLite) makes ids commit in order, so every node numbers them alike (docs/api.md).
 */
export async function nextLiveEventIds(db: Executor, count: number): Promise<number[]> {
  const row = await db
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', count) }))
    .where('name', '=', 'live_event')
    .returning('value')
    .executeTakeFirstOrThrow();
  const last = Number(row.value);
  return Array.from({ length: count }, (_, i) => last - count + 1 + i);
}

export async function insertLiveEvents(
  db: Executor,
  events: { id: number; type: string; sessionId: number | null; ownerUserId: number | null; payload: string; now: string }[],
): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('live_events')
    .values(events.map((e) => ({ id: e.id, type: e.type, session_id: e.sessionId, owner_user_id: e.ownerUserId, payload: e.payload, created_at: e.now })))
    .execute();
}

export async function liveEventsAfter(db: Executor, afterId: number, limit: number): Promise<LiveEventRecord[]> {
  const rows = await db.selectFrom('live_events').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    type: r.type,
    sessionId: r.session_id === null ? null : Number(r.session_id),
    ownerUserId: r.owner_user_id === null ? null : Number(r.owner_user_id),
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    createdAt: r.created_at,
  }));
}

export async function oldestAndNewestLiveEventId(db: Executor): Promise<{ oldest: number | null; newest: number }> {
  const row = await db
    .selectFrom('live_events')
    .select((eb) => [eb.fn.min<number>('id').as('oldest'), eb.fn.max<number>('id').as('newest')])
    .executeTakeFirstOrThrow();
  const counter = await db.selectFrom('counters').select('value').where('name', '=', 'live_event').executeTakeFirstOrThrow();
  return { oldest: row.oldest === null ? null : Number(row.oldest), newest: Number(counter.value) };
}

/** Keeps the backlog bounded: older events are answered with a `resync`. */
export async function pruneLiveEvents(db: Executor, keepAfterId: number): Promise<void> {
  await db.deleteFrom('live_events').where('id', '<=', keepAfterId).execute();
}
