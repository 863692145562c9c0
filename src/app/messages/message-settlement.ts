import { MESSAGE_HISTORY_SCHEMA_VERSION } from '../../core/message-history-format.js';
import type { MessageState } from '../../core/message-envelope.js';
import { UNSETTLED_STATES } from '../../core/inbox-rules.js';
import { findInboxItem, updateInboxItemIfState } from '../../store/inbox-repo.js';
import { acceptedMessagesTo, dueMessages, findMessagesByInboxItems, insertHistories, settleMessages, type MessageRecord } from '../../store/messages-repo.js';
import { findSessionsByIds, type SessionRecord } from '../../store/sessions-repo.js';
import { keyedDigest } from '../audit.js';
import type { AppContext } from '../context.js';
import { inboxChanged } from '../inbox/inbox-items.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';

/**
 * docs/messages.md: how a message leaves `accepted` — `delivered` when its target acknowledges it,
 * `expired` when its deadline passes first, `failed` when its target is deleted first — and
 * what that writes: one `message_history` row (no payload) and its audit entry (docs/attribution.md: a
 * keyed digest of the payload, never the payload), in the same transaction.
 */
type TerminalReason = 'acknowledged' | 'deadline' | 'target-deleted';

/** A batch small enough for one statement's parameters on both backends. */
const SETTLE_CHUNK = 500;

/**
 * Settles `messages` — per chunk one statement for the compare-and-set and one for the history
 * rows, instead of two per message — and returns those that landed, in order.
 */
async function recordTerminals(
  w: WriteScope,
  messages: readonly MessageRecord[],
  state: Exclude<MessageState, 'accepted'>,
  terminalAt: string,
  reason: TerminalReason,
): Promise<MessageRecord[]> {
  if (messages.length > SETTLE_CHUNK) {
    const out: MessageRecord[] = [];
    for (let i = 0; i < messages.length; i += SETTLE_CHUNK)
      out.push(...(await recordTerminals(w, messages.slice(i, i + SETTLE_CHUNK), state, terminalAt, reason)));
    return out;
  }
  if (messages.length === 0) return [];
  // compare-and-set: of two concurrent settlements (ack and expiry) exactly one lands
  const landed = await settleMessages(
    w.tx,
    messages.map((m) => m.id),
    state,
    terminalAt,
    reason,
  );
  const settled = messages.filter((m) => landed.has(m.id));
  const seqs = await insertHistories(
    w.tx,
    settled.map((m) => ({
      messageId: m.id,
      schemaVersion: MESSAGE_HISTORY_SCHEMA_VERSION,
      ref: m.ref,
      conversationRef: m.conversationRef,
      replyTo: m.replyTo,
      sourceSessionId: m.sourceSessionId,
      sourceBasis: m.sourceBasis,
      sourceActivation: m.sourceActivation,
      sourceConversation: m.sourceConversation,
      targetSessionId: m.targetSessionId,
      targetConversation: m.targetConversation,
      deadline: m.deadline,
      payloadBytes: m.payloadBytes,
      payloadSha256: m.payloadSha256,
      state,
      acceptedAt: m.acceptedAt,
      terminalAt,
      terminalReason: reason,
      recordedAt: w.now,
    })),
  );
  for (const m of settled) {
    w.audit({
      kind: 'message_history',
      at: w.now,
      history_seq: seqs.get(m.id)!,
      message_id: m.id,
      ref: m.ref,
      conversation_ref: m.conversationRef,
      reply_to: m.replyTo,
      source: { session_id: m.sourceSessionId, basis: m.sourceBasis, activation: m.sourceActivation, provider_conversation: m.sourceConversation },
      target: { session_id: m.targetSessionId, provider_conversation: m.targetConversation },
      deadline: m.deadline,
      state,
      accepted_at: m.acceptedAt,
      terminal_at: terminalAt,
      terminal_reason: reason,
      payload_bytes: m.payloadBytes,
      // the key lives beside the payload and is reclaimed with it (docs/attribution.md)
      payload_digest: m.digestKey !== null && m.payload !== null ? keyedDigest(m.digestKey, m.payload) : null,
      sender_actor_id: m.senderActorId,
      caused_by_actor_id: m.causeActorId,
      cause_basis: m.causeBasis,
      credential_id: m.credentialId,
    });
  }
  return settled;
}

const recordTerminal = async (w: WriteScope, m: MessageRecord, state: Exclude<MessageState, 'accepted'>, terminalAt: string, reason: TerminalReason) =>
  (await recordTerminals(w, [m], state, terminalAt, reason)).length === 1;

/**
 * Accepted messages whose deadline has come become `expired` at their deadline, and their
 * inbox items with them — for one target inbox (before a lease or an acknowledgement, so a
 * late lease never hands one out) or everywhere (housekeeping). Returns how many expired.
 */
export async function expireDueMessages(w: WriteScope, options: { targetSessionId?: number; limit?: number } = {}): Promise<number> {
  const due = await dueMessages(w.tx, w.now, {
    ...(options.targetSessionId !== undefined ? { targetSessionId: options.targetSessionId } : {}),
    limit: options.limit ?? 500,
  });
  if (due.length === 0) return 0;
  const expiredItems = new Map<number, { id: number; kind: 'agent_message'; mode: 'next_turn'; state: 'expired' }[]>();
  let n = 0;
  for (const m of due) {
    // the item first, as an acknowledgement does (same lock order): if the target's runtime
    // acknowledged it meanwhile, the acknowledgement settles the message, not the deadline
    if (m.inboxItemId !== null) {
      // a written item too: the agent never reported taking it before the deadline (docs/api.md)
      if (await updateInboxItemIfState(w.tx, m.inboxItemId, UNSETTLED_STATES, { state: 'expired', clearLease: true }, w.now)) {
        expiredItems.set(m.targetSessionId, [
          ...(expiredItems.get(m.targetSessionId) ?? []),
          { id: m.inboxItemId, kind: 'agent_message', mode: 'next_turn', state: 'expired' },
        ]);
      } else if (await findInboxItem(w.tx, m.inboxItemId)) continue;
    }
    if (await recordTerminal(w, m, 'expired', m.deadline, 'deadline')) n++;
  }
  if (expiredItems.size > 0) {
    for (const target of await findSessionsByIds(w.tx, w.ctx.store, [...expiredItems.keys()])) inboxChanged(w, target, 'expired', expiredItems.get(target.id)!);
  }
  return n;
}

/**
 * The target acknowledged these inbox items (docs/messages.md: delivery is acknowledged, not assumed):
 * their agent messages are `delivered`, and the sender hears of it (`message_delivered`).
 */
export async function markMessagesDelivered(w: WriteScope, itemIds: readonly number[]): Promise<void> {
  const messages = (await findMessagesByInboxItems(w.tx, itemIds)).filter((m) => m.state === 'accepted');
  if (messages.length === 0) return;
  const delivered = await recordTerminals(w, messages, 'delivered', w.now, 'acknowledged');
  const sessions = new Map(
    (
      await findSessionsByIds(
        w.tx,
        w.ctx.store,
        delivered.flatMap((m) => [m.sourceSessionId, m.targetSessionId]),
      )
    ).map((s) => [s.id, s]),
  );
  for (const m of delivered) {
    const payload = {
      message_id: m.id,
      conversation_ref: m.conversationRef,
      reply_to: m.replyTo,
      source_session_id: m.sourceSessionId,
      target_session_id: m.targetSessionId,
      delivered_at: w.now,
    };
    // visible to whoever may see the sender, and to whoever may see the target when that differs
    const source = sessions.get(m.sourceSessionId);
    const target = sessions.get(m.targetSessionId);
    const owners = new Map<string, SessionRecord>();
    for (const s of [source, target]) if (s) owners.set(String(s.ownerUserId), s);
    for (const s of owners.values()) w.live({ type: 'message_delivered', sessionId: s.id, ownerUserId: s.ownerUserId, payload });
  }
}

/** A deleted target can never acknowledge: its accepted messages are `failed` (in the delete's transaction). */
export async function failMessagesToDeletedSession(w: WriteScope, session: SessionRecord): Promise<number> {
  return (await recordTerminals(w, await acceptedMessagesTo(w.tx, session.id), 'failed', w.now, 'target-deleted')).length;
}

/** Housekeeping: expire what is due everywhere, in bounded batches. */
export async function expireMessages(ctx: AppContext): Promise<number> {
  let total = 0;
  for (let round = 0; round < 20; round++) {
    const n = await inWriteTx(ctx, (w) => expireDueMessages(w, { limit: 200 }));
    total += n;
    if (n < 200) break;
  }
  return total;
}
