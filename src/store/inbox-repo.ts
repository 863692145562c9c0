import { sql, type Insertable } from 'kysely';
import type { ActBasis } from '../core/basis.js';
import { UNSETTLED_STATES, type InboxKind, type InboxMode, type InboxState } from '../core/inbox-rules.js';
import { compiledForRows } from './compiled-once.js';
import type { Database } from './database.js';
import type { Executor } from './dialect/dialect.js';

interface NewInboxItem {
  sessionId: number;
  kind: InboxKind;
  mode: InboxMode;
  content: string;
  details: Record<string, unknown>;
  senderActorId: number | null;
  senderBasis: ActBasis | null;
  senderSessionId: number | null;
  causeActorId: number | null;
  causeBasis: ActBasis | null;
  credentialId: number | null;
  now: string;
  /** agent messages: the deadline (docs/messages.md) */
  expiresAt?: string | null;
  /** the provider conversations of sender and target at send time (the reply rule, docs/messages.md) */
  senderConversation?: string | null;
  targetConversation?: string | null;
}

/** A stored item: what was added (its optional fields resolved), and its state since. */
export interface InboxItemRecord extends Omit<NewInboxItem, 'now' | 'expiresAt' | 'senderConversation' | 'targetConversation'> {
  id: number;
  state: InboxState;
  leaseExpiresAt: string | null;
  leasedAt: string | null;
  leaseCount: number;
  deliveredAt: string | null;
  withdrawnAt: string | null;
  createdAt: string;
  updatedAt: string;
  expiresAt: string | null;
  senderConversation: string | null;
  targetConversation: string | null;
  /** written into the agent by its runner: when, and until when its prompt report is awaited */
  writtenAt: string | null;
  writtenDeadline: string | null;
  retiredAt: string | null;
}

type Row = {
  id: number;
  session_id: number;
  kind: string;
  mode: string;
  content: string;
  details: string;
  sender_actor_id: number | null;
  sender_basis: string | null;
  sender_session_id: number | null;
  cause_actor_id: number | null;
  cause_basis: string | null;
  credential_id: number | null;
  state: string;
  lease_expires_at: string | null;
  leased_at: string | null;
  lease_count: number;
  delivered_at: string | null;
  withdrawn_at: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  sender_conversation: string | null;
  target_conversation: string | null;
  written_at: string | null;
  written_deadline: string | null;
  retired_at: string | null;
};

/** States a row keeps whatever the clock says. */
const SETTLED: readonly InboxState[] = ['delivered', 'withdrawn', 'expired', 'retired'];

const n = (v: number | null): number | null => (v === null ? null : Number(v));

function toRecord(r: Row): InboxItemRecord {
  let details: Record<string, unknown> = {};
  try {
    details = JSON.parse(r.details) as Record<string, unknown>;
  } catch {
    details = {};
  }
  return {
    id: Number(r.id),
    sessionId: Number(r.session_id),
    kind: r.kind as InboxKind,
    mode: r.mode as InboxMode,
    content: r.content,
    details,
    senderActorId: n(r.sender_actor_id),
    senderBasis: r.sender_basis as ActBasis | null,
    senderSessionId: n(r.sender_session_id),
    causeActorId: n(r.cause_actor_id),
    causeBasis: r.cause_basis as ActBasis | null,
    credentialId: n(r.credential_id),
    state: r.state as InboxState,
    leaseExpiresAt: r.lease_expires_at,
    leasedAt: r.leased_at,
    leaseCount: Number(r.lease_count),
    deliveredAt: r.delivered_at,
    withdrawnAt: r.withdrawn_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    expiresAt: r.expires_at,
    senderConversation: r.sender_conversation,
    targetConversation: r.target_conversation,
    writtenAt: r.written_at,
    writtenDeadline: r.written_deadline,
    retiredAt: r.retired_at,
  };
}

const insertInboxItemRows = compiledForRows((db, rows: readonly Insertable<Database['inbox_items']>[]) =>
  db.insertInto('inbox_items').values(rows).returningAll(),
);

/** The new item as stored (read back by the insert itself, not by a second query). */
export async function insertInboxItem(db: Executor, item: NewInboxItem): Promise<InboxItemRecord> {
  const [row] = await insertInboxItemRows(db, [
    {
      session_id: item.sessionId,
      kind: item.kind,
      mode: item.mode,
      content: item.content,
      details: JSON.stringify(item.details),
      sender_actor_id: item.senderActorId,
      sender_basis: item.senderBasis,
      sender_session_id: item.senderSessionId,
      cause_actor_id: item.causeActorId,
      cause_basis: item.causeBasis,
      credential_id: item.credentialId,
      state: 'pending',
      created_at: item.now,
      updated_at: item.now,
      expires_at: item.expiresAt ?? null,
      sender_conversation: item.senderConversation ?? null,
      target_conversation: item.targetConversation ?? null,
    },
  ]);
  if (!row) throw new Error('inbox_items: the insert returned no row');
  return toRecord(row);
}

export async function findInboxItem(db: Executor, id: number): Promise<InboxItemRecord | null> {
  const row = await db.selectFrom('inbox_items').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function findInboxItems(db: Executor, sessionId: number, ids: readonly number[]): Promise<InboxItemRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('inbox_items')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .execute();
  return rows.map((r) => toRecord(r as Row));
}

interface InboxFilter {
  sessionId: number;
  /** effective states: a lease that lapsed at `now` counts as pending */
  states?: readonly InboxState[];
  now: string;
  kinds?: readonly InboxKind[];
  afterId?: number;
  limit: number;
}

/** Oldest first, by id, filtered on the effective state (what a reader sees: core/inbox-rules.ts effectiveState). */
export async function listInboxItems(db: Executor, f: InboxFilter): Promise<InboxItemRecord[]> {
  let q = db.selectFrom('inbox_items').selectAll().where('session_id', '=', f.sessionId);
  if (f.states && f.states.length > 0) {
    const states = f.states;
    const settled = states.filter((s) => SETTLED.includes(s));
    q = q.where((eb) => {
      // an unsettled item past its deadline reads as expired (docs/messages.md), whatever its row says
      const live = eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', f.now)]);
      const overdueWrite = eb.and([eb('state', '=', 'written'), eb('written_deadline', '<=', f.now)]);
      return eb.or([
        ...(settled.length > 0 ? [eb('state', 'in', settled)] : []),
        ...(states.includes('expired') ? [eb.and([eb('state', 'in', [...UNSETTLED_STATES]), eb('expires_at', '<=', f.now)])] : []),
        ...(states.includes('pending')
          ? [eb.and([live, eb.or([eb('state', '=', 'pending'), eb.and([eb('state', '=', 'leased'), eb('lease_expires_at', '<=', f.now)])])])]
          : []),
        ...(states.includes('leased') ? [eb.and([live, eb('state', '=', 'leased'), eb('lease_expires_at', '>', f.now)])] : []),
        ...(states.includes('written') ? [eb.and([live, eb('state', '=', 'written'), eb('written_deadline', '>', f.now)])] : []),
        ...(states.includes('undelivered') ? [eb.and([live, eb.or([eb('state', '=', 'undelivered'), overdueWrite])])] : []),
      ]);
    });
  }
  if (f.kinds && f.kinds.length > 0) q = q.where('kind', 'in', [...f.kinds]);
  if (f.afterId !== undefined) q = q.where('id', '>', f.afterId);
  const rows = await q.orderBy('id').limit(f.limit).execute();
  return rows.map((r) => toRecord(r as Row));
}

/**
 * Returns lapsed leases to `pending` (docs/messages.md: default 60 s), for one session or all; the
 * items that changed, with their sessions.
 */
export async function lapseExpiredLeases(db: Executor, now: string, sessionId?: number): Promise<{ id: number; sessionId: number }[]> {
  let q = db
    .updateTable('inbox_items')
    .set({ state: 'pending', lease_expires_at: null, updated_at: now })
    .where('state', '=', 'leased')
    .where('lease_expires_at', '<=', now);
  if (sessionId !== undefined) q = q.where('session_id', '=', sessionId);
  const rows = await q.returning(['id', 'session_id']).execute();
  return rows.map((r) => ({ id: Number(r.id), sessionId: Number(r.session_id) }));
}

/**
 * Leases up to `limit` pending items of the given modes, interrupt first, then next-turn,
 * then when-idle, oldest first within each. The update is a compare-and-set on `pending`, so
 * two concurrent leases never hand out the same item: each gets only the rows it changed, and
 * one that lost rows to the other looks again for what is still pending.
 */
export async function leasePendingItems(
  db: Executor,
  f: { sessionId: number; modes: readonly InboxMode[]; now: string; expiresAt: string; limit: number },
): Promise<InboxItemRecord[]> {
  if (f.modes.length === 0 || f.limit <= 0) return [];
  const leased: number[] = [];
  for (let round = 0; round < 8 && leased.length < f.limit; round++) {
    const candidates = await db
      .selectFrom('inbox_items')
      .select('id')
      .where('session_id', '=', f.sessionId)
      .where('state', '=', 'pending')
      .where('mode', 'in', [...f.modes])
      // a late lease never hands out an expired agent message (docs/messages.md)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', f.now)]))
      .orderBy(sql`case mode when 'interrupt' then 0 when 'next_turn' then 1 else 2 end`)
      .orderBy('id')
      .limit(f.limit - leased.length)
      .execute();
    if (candidates.length === 0) break;
    const rows = await db
      .updateTable('inbox_items')
      .set((eb) => ({ state: 'leased', lease_expires_at: f.expiresAt, leased_at: f.now, lease_count: eb('lease_count', '+', 1), updated_at: f.now }))
      .where(
        'id',
        'in',
        candidates.map((c) => Number(c.id)),
      )
      .where('state', '=', 'pending')
      .returning(['id'])
      .execute();
    leased.push(...rows.map((r) => Number(r.id)));
    if (rows.length === candidates.length) break;
  }
  return findInboxItems(db, f.sessionId, leased);
}

/**
 * Compare-and-set on the item's state (and mode, when given): false when it changed
 * meanwhile, so of two identical concurrent changes exactly one lands.
 */
export async function updateInboxItemIfState(
  db: Executor,
  id: number,
  expected: readonly InboxState[],
  changes: { state?: InboxState; mode?: InboxMode; deliveredAt?: string; withdrawnAt?: string; clearLease?: boolean },
  now: string,
  expectedMode?: InboxMode,
): Promise<boolean> {
  let q = db
    .updateTable('inbox_items')
    .set({
      ...(changes.state ? { state: changes.state } : {}),
      ...(changes.mode ? { mode: changes.mode } : {}),
      ...(changes.deliveredAt ? { delivered_at: changes.deliveredAt } : {}),
      ...(changes.withdrawnAt ? { withdrawn_at: changes.withdrawnAt } : {}),
      ...(changes.clearLease ? { lease_expires_at: null } : {}),
      updated_at: now,
    })
    .where('id', '=', id)
    .where('state', 'in', [...expected]);
  if (expectedMode) q = q.where('mode', '=', expectedMode);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** One session's items from `expected` to `delivered`, in one statement: the ids that moved. */
export async function markInboxItemsDelivered(
  db: Executor,
  sessionId: number,
  ids: readonly number[],
  expected: readonly InboxState[],
  now: string,
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .updateTable('inbox_items')
    .set({ state: 'delivered', delivered_at: now, lease_expires_at: null, updated_at: now })
    .where('session_id', '=', sessionId)
    .where('id', 'in', [...ids])
    .where('state', 'in', [...expected])
    .returning('id')
    .execute();
  return new Set(rows.map((r) => Number(r.id)));
}

/** Removes an item whose words were reclaimed by retention (an agent message's copy of its payload, docs/messages.md). */
export async function deleteInboxItem(db: Executor, id: number): Promise<boolean> {
  const r = await db.deleteFrom('inbox_items').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}
