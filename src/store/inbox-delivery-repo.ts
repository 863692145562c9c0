import { MATCHABLE_STATES, RETIRABLE_STATES, type InboxState } from '../core/inbox-rules.js';
import type { Executor } from './dialect/dialect.js';
import { findInboxItem, findInboxItems, type InboxItemRecord } from './inbox-repo.js';

/**
 * Acknowledged delivery into an agent (docs/api.md "Delivery into the agent"): a runner's
 * writes, the prompt reports that settle them, resends, and stop items retired with their
 * runtime. Every change is a compare-and-set on the row's state, so two concurrent reports
 * never settle one item twice.
 */

/** `written`: never leased again; the frame's digest and length are what a prompt report must equal. */
export async function markItemWritten(
  db: Executor,
  id: number,
  expected: readonly InboxState[],
  w: { now: string; deadline: string; frameDigest: string; frameLength: number },
): Promise<boolean> {
  const r = await db
    .updateTable('inbox_items')
    .set({
      state: 'written',
      written_at: w.now,
      written_deadline: w.deadline,
      frame_digest: w.frameDigest,
      frame_length: w.frameLength,
      lease_expires_at: null,
      updated_at: w.now,
    })
    .where('id', '=', id)
    .where('state', 'in', [...expected])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * The session's written (or undelivered) items whose frame equals the report, oldest write
 * first: only this session's rows are ever candidates.
 */
const INT32_MAX = 2_147_483_647;

export async function writtenItemsMatching(db: Executor, sessionId: number, digest: string, length: number, limit = 8): Promise<InboxItemRecord[]> {
  // frame_length is a 32-bit integer column: a longer length matches no row (PostgreSQL would refuse the comparison)
  if (length > INT32_MAX) return [];
  const rows = await db
    .selectFrom('inbox_items')
    .select('id')
    .where('session_id', '=', sessionId)
    .where('frame_digest', '=', digest)
    .where('frame_length', '=', length)
    .where('state', 'in', [...MATCHABLE_STATES])
    .orderBy('written_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  const items = await findInboxItems(
    db,
    sessionId,
    rows.map((r) => Number(r.id)),
  );
  const order = new Map(rows.map((r, i) => [Number(r.id), i]));
  return items.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

/** A prompt report matched it: `delivered`, however late. */
export async function deliverWrittenItem(db: Executor, id: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable('inbox_items')
    .set({ state: 'delivered', delivered_at: now, updated_at: now })
    .where('id', '=', id)
    .where('state', 'in', [...MATCHABLE_STATES])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Writes past their deadline become `undelivered` rows (a reader already sees them so). */
export async function settleOverdueWrites(db: Executor, now: string, options: { sessionId?: number; limit?: number } = {}): Promise<InboxItemRecord[]> {
  let q = db.selectFrom('inbox_items').select(['id', 'session_id']).where('state', '=', 'written').where('written_deadline', '<=', now);
  if (options.sessionId !== undefined) q = q.where('session_id', '=', options.sessionId);
  const due = await q
    .orderBy('written_deadline')
    .orderBy('id')
    .limit(options.limit ?? 500)
    .execute();
  const out: InboxItemRecord[] = [];
  for (const d of due) {
    const r = await db
      .updateTable('inbox_items')
      .set({ state: 'undelivered', updated_at: now })
      .where('id', '=', Number(d.id))
      .where('state', '=', 'written')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 1) out.push((await findInboxItem(db, Number(d.id)))!);
  }
  return out;
}

/** A resend: back to `pending`, the write forgotten (the events keep it). */
export async function resendItem(db: Executor, id: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable('inbox_items')
    .set({ state: 'pending', written_at: null, written_deadline: null, frame_digest: null, frame_length: null, lease_expires_at: null, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'undelivered')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The session's unacknowledged stop items become `retired`; the ones that changed. */
export async function retireControlItems(db: Executor, sessionId: number, now: string): Promise<InboxItemRecord[]> {
  const rows = await db
    .updateTable('inbox_items')
    .set({ state: 'retired', retired_at: now, lease_expires_at: null, updated_at: now })
    .where('session_id', '=', sessionId)
    .where('kind', '=', 'control')
    .where('state', 'in', [...RETIRABLE_STATES])
    .returning('id')
    .execute();
  return findInboxItems(
    db,
    sessionId,
    rows.map((r) => Number(r.id)),
  );
}

/** `delivery: "runner"` on attach: this activation's runner owns delivery (null: nobody does). */
export async function setRunnerDelivery(db: Executor, sessionId: number, activation: number | null): Promise<void> {
  await db.updateTable('sessions').set({ runner_delivery_activation: activation }).where('id', '=', sessionId).execute();
}

export async function runnerDeliveryActivation(db: Executor, sessionId: number): Promise<number | null> {
  const row = await db.selectFrom('sessions').select('runner_delivery_activation').where('id', '=', sessionId).executeTakeFirst();
  return row?.runner_delivery_activation == null ? null : Number(row.runner_delivery_activation);
}
