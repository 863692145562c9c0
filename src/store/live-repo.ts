import { sql } from 'kysely';
import { compiledForBatches, compiledForRows, compiledOnce } from './compiled-once.js';
import type { Insertable, Transaction } from 'kysely';
import type { Database } from './database.js';
import { auditRowsFromHeadCtes, auditRowsOnHeadSql, insertAuditRowsOnHead, type AuditRow, type EntryTemplate } from './audit-repo.js';
import { RESULT_UNUSED, type Executor, type StoreDialect } from './dialect/dialect.js';

export interface LiveEventRecord {
  id: number;
  type: string;
  sessionId: number | null;
  ownerUserId: number | null;
  payload: Record<string, unknown>;
  createdAt: string;
}

export type NewLiveEvent = { type: string; sessionId: number | null; ownerUserId: number | null; payload: string; now: string };

// each write's live events take their ids with one statement: built and compiled once (compiled-once.ts)
const takeLiveEventIds = compiledOnce((db, p: { count: number }) =>
  db
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', p.count) }))
    .where('name', '=', 'live_event')
    .returning('value'),
);

/** The events as a VALUES list for PostgreSQL's one-statement insert, each with its offset from the last id. */
function liveValuesSql(events: readonly NewLiveEvent[]) {
  const count = events.length;
  return sql.join(
    events.map(
      (e, i) => sql`(${i + 1 - count}::bigint, ${e.type}::text, ${e.sessionId}::bigint, ${e.ownerUserId}::bigint, ${e.payload}::text, ${e.now}::text)`,
    ),
  );
}

/** A data-modifying CTE pair taking the counter's next ids (`c`) and inserting the events under them (PostgreSQL). */
function liveInsertCtes(events: readonly NewLiveEvent[]) {
  return sql`c as (update counters set value = value + ${events.length} where name = 'live_event' returning value),
    l as (insert into live_events (id, type, session_id, owner_user_id, payload, created_at)
      select c.value + v.offset_from_last, v.type, v.session_id, v.owner_user_id, v.payload, v.created_at
      from c, (values ${liveValuesSql(events)}) as v (offset_from_last, type, session_id, owner_user_id, payload, created_at))`;
}

// the statements below are compiled once per number of events (and audit rows): compiled-once.ts
const liveEventsInOneStatement = compiledForBatches(
  (_db, b: { events: readonly NewLiveEvent[] }, _shared: Record<string, never>) =>
    sql<{ last: number }>`with ${liveInsertCtes(b.events)} select value as last from c`,
);

const insertLiveEventRows = compiledForRows((db, rows: readonly Insertable<Database['live_events']>[]) => db.insertInto('live_events').values(rows));

/**
 * Writes the events under the next ids of the live-event counter, in order; returns the last
 * id. The counter's row lock (PostgreSQL) or the single writer (SQLite) makes ids commit in
 * order, so every node numbers them alike (docs/api.md). Where the dialect allows, the counter
 * and the insert are one statement: the lock is held from here to the commit, so each round
 * trip under it is one every other writer waits for.
 */
async function insertLiveEvents(db: Executor, store: StoreDialect, events: readonly NewLiveEvent[]): Promise<number> {
  const count = events.length;
  if (store.capabilities.updateInCte) {
    const [row] = await liveEventsInOneStatement(db, { events }, {});
    return Number(row!.last);
  }
  const [row] = await takeLiveEventIds(db, { count });
  if (!row) throw new Error('the live_event counter has no row');
  const last = Number(row.value);
  await insertLiveEventRows(
    db,
    events.map((e, i) => ({
      id: last - count + 1 + i,
      type: e.type,
      session_id: e.sessionId,
      owner_user_id: e.ownerUserId,
      payload: e.payload,
      created_at: e.now,
    })),
  );
  return last;
}

/** Writes a transaction's live events and publishes their wake-up (their last id) on `notifyChannel`. */
export async function writeLiveEvents(
  db: Transaction<Database>,
  store: StoreDialect,
  live: { events: readonly NewLiveEvent[]; notifyChannel: string },
): Promise<void> {
  if (live.events.length > 0) await store.notifyInTx(db, live.notifyChannel, String(await insertLiveEvents(db, store, live.events)));
}

/**
 * A write's last statement before COMMIT, under the chain lock: its live events (with the wake-up
 * `notifyChannel` carrying their last id) and its audit rows appended only if `head` is still the
 * log's last entry (insertAuditRowsOnHead): where this process chains the rows (SQLite, and a
 * PostgreSQL append whose entries cannot be templated: appendLiveEventsAndAuditFromHead is the
 * usual one there). Where the dialect allows, one statement; elsewhere one by one.
 * Returns whether the audit rows were appended; the live events are written either way.
 */
export async function insertLiveEventsAndAuditOnHead(
  db: Transaction<Database>,
  store: StoreDialect,
  live: { events: readonly NewLiveEvent[]; notifyChannel: string },
  head: { seq: number; hash: string },
  rows: readonly AuditRow[],
): Promise<boolean> {
  if (!store.capabilities.updateInCte || live.events.length === 0 || rows.length === 0) {
    await writeLiveEvents(db, store, live);
    return insertAuditRowsOnHead(db, head, rows);
  }
  const [row] = await liveEventsAndAuditStatement(db, { events: live.events, rows }, { channel: live.notifyChannel, headSeq: head.seq, headHash: head.hash });
  return Number(row!.appended) === rows.length;
}

const liveEventsAndAuditStatement = compiledForBatches(
  (_db, b: { events: readonly NewLiveEvent[]; rows: readonly AuditRow[] }, shared: { channel: string; headSeq: number; headHash: string }) =>
    sql<{ appended: number | string }>`with ${liveInsertCtes(b.events)},
    a as (${auditRowsOnHeadSql({ seq: shared.headSeq, hash: shared.headHash }, b.rows)})
    select (select count(*) from a) as appended, pg_notify(${shared.channel}, (select value from c)::text)`,
);

/**
 * PostgreSQL, under the chain lock: the transaction's live events (and their wake-up) and its
 * audit rows chained on the head as the statement finds it (auditRowsFromHeadCtes), in one
 * statement nobody waits for. It cannot miss the head, so its answer is not needed: it goes out
 * with the statements after it (the hot rows, COMMIT) in one write (postgres-pipeline.ts), and
 * the locks it takes are held for the server's work and no trip through this process. A failure
 * fails the statement it went out with, and so the transaction.
 */
export async function appendLiveEventsAndAuditFromHead(
  db: Transaction<Database>,
  live: { events: readonly NewLiveEvent[]; notifyChannel: string },
  entries: readonly EntryTemplate[],
  genesisHash: string,
): Promise<void> {
  if (live.events.length === 0) await auditFromHeadStatement(db, { entries }, { genesisHash });
  else await liveEventsAndAuditFromHeadStatement(db, { events: live.events, entries }, { channel: live.notifyChannel, genesisHash });
}

const auditFromHeadStatement = compiledForBatches(
  (_db, b: { entries: readonly EntryTemplate[] }, shared: { genesisHash: string }) =>
    sql`${sql.raw(RESULT_UNUSED)}with ${auditRowsFromHeadCtes(b.entries, shared.genesisHash)} select count(*) as appended from a`,
);

const liveEventsAndAuditFromHeadStatement = compiledForBatches(
  (_db, b: { events: readonly NewLiveEvent[]; entries: readonly EntryTemplate[] }, shared: { channel: string; genesisHash: string }) =>
    sql`${sql.raw(RESULT_UNUSED)}with ${liveInsertCtes(b.events)}, ${auditRowsFromHeadCtes(b.entries, shared.genesisHash)}
    select (select count(*) from a) as appended, pg_notify(${shared.channel}, (select value from c)::text)`,
);

// every write wakes the hub, which reads what it committed: compiled once
const liveEventRowsAfter = compiledOnce((db, p: { afterId: number; limit: number }) =>
  db.selectFrom('live_events').selectAll().where('id', '>', p.afterId).orderBy('id').limit(p.limit),
);

export async function liveEventsAfter(db: Executor, afterId: number, limit: number): Promise<LiveEventRecord[]> {
  const rows = await liveEventRowsAfter(db, { afterId, limit });
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
