import { parseDuration } from '../../core/durations.js';
import type { Executor } from '../../store/dialect/dialect.js';
import { deleteInboxItem } from '../../store/inbox-repo.js';
import { adjustHeldMessages, heldMessagesAndSetting, reclaimableMessages, reclaimPayload, type MessageRecord } from '../../store/messages-repo.js';
import { getSetting } from '../../store/settings-repo.js';
import type { AppContext } from '../context.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';

/**
 * docs/messages.md: payloads are reclaimed by retention — a period after a message
 * is terminal (default 7 days) and a configurable capacity of messages holding a payload. The
 * envelope stays (ids, refs and replies remain unique for good) and its history row stays;
 * the payload, its digest key and the inbox item that carried a copy of it go.
 */
export const SETTING_MESSAGE_RETENTION = 'message_retention';
export const SETTING_MESSAGE_CAPACITY = 'message_store_capacity';
export const DEFAULT_MESSAGE_RETENTION = '7d';
export const DEFAULT_MESSAGE_CAPACITY = 1_000_000;
export const MAX_MESSAGE_CAPACITY = 1_000_000_000;

async function messageRetentionMs(db: Executor): Promise<number> {
  const text = (await getSetting(db, SETTING_MESSAGE_RETENTION)) ?? DEFAULT_MESSAGE_RETENTION;
  return parseDuration(text) ?? parseDuration(DEFAULT_MESSAGE_RETENTION)!;
}

function capacityOf(text: string | null): number {
  const n = text === null ? NaN : Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : DEFAULT_MESSAGE_CAPACITY;
}

/** How many messages hold a payload and how many may: one read, for a send. */
export async function heldAndCapacity(db: Executor): Promise<{ held: number; limit: number }> {
  const { held, setting } = await heldMessagesAndSetting(db, SETTING_MESSAGE_CAPACITY);
  return { held, limit: capacityOf(setting) };
}

type ReclaimReason = 'retention' | 'capacity';

/** Reclaims the payloads of these terminal messages inside `w`; returns how many it reclaimed. */
async function reclaimPayloads(w: WriteScope, messages: readonly MessageRecord[], reason: ReclaimReason): Promise<number> {
  let n = 0;
  for (const m of messages) {
    if (!(await reclaimPayload(w.tx, m.id, w.now))) continue;
    n++;
    if (m.inboxItemId !== null) await deleteInboxItem(w.tx, m.inboxItemId);
    // the log says when and why the words went (docs/design/messages.md, "History and retention")
    w.audit({ kind: 'message_payload_reclaimed', at: w.now, message_id: m.id, reason, terminal_at: m.terminalAt });
  }
  // after the audit append, as a send's +1 is (WriteScope.hotRowUpdate: one lock order)
  if (n > 0) w.hotRowUpdate((tx) => adjustHeldMessages(tx, -n));
  return n;
}

/** Reclaims the oldest terminal payloads so `needed` more fit (the send path, at capacity). */
export async function reclaimForCapacity(w: WriteScope, needed: number): Promise<number> {
  if (needed <= 0) return 0;
  return reclaimPayloads(w, await reclaimableMessages(w.tx, { limit: needed }), 'capacity');
}

/** Housekeeping: payloads past retention, then the oldest terminal ones while over capacity. */
export async function reclaimMessagePayloads(ctx: AppContext): Promise<{ retention: number; capacity: number }> {
  const out = { retention: 0, capacity: 0 };
  const batch = 200;
  for (let round = 0; round < 50; round++) {
    const n = await inWriteTx(ctx, async (w) => {
      const before = new Date(Date.parse(w.now) - (await messageRetentionMs(w.tx))).toISOString();
      return reclaimPayloads(w, await reclaimableMessages(w.tx, { before, limit: batch }), 'retention');
    });
    out.retention += n;
    if (n < batch) break;
  }
  for (let round = 0; round < 50; round++) {
    const n = await inWriteTx(ctx, async (w) => {
      const { held, limit } = await heldAndCapacity(w.tx);
      const over = held - limit;
      return over > 0 ? reclaimForCapacity(w, Math.min(over, batch)) : 0;
    });
    out.capacity += n;
    if (n < batch) break;
  }
  return out;
}
