import { WarrantError } from '../../core/errors.js';
import { decideQueueChange, isQueueItem, type InboxKind, type InboxMode, type QueueChange } from '../../core/inbox-rules.js';
import type { UncleSource } from '../../core/uncle-edge-rules.js';
import { findInboxItem, lapseExpiredLeases, updateInboxItemIfState } from '../../store/inbox-repo.js';
import type { SessionRecord } from '../../store/sessions-repo.js';
import { authorize, requireSession, visibilityOf } from '../access.js';
import { attributionOf, checkActingSessionClaim, resolveActing, type Acting } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { recordUncleEdge, type UncleEdgeResult } from '../lineage/uncle-edges.js';
import { inWriteTx } from '../write-scope.js';
import { captureHumanWords, recordWithdrawal, type EntryPoint } from '../human-messages/capture.js';
import { claimDeliveryKey, completeDeliveryKey, deliveryKey } from './delivery-idempotency.js';
import { addInboxItem, checkInboxContent, inboxChanged, inboxItemViews, requireDeliverable, type InboxItemView } from './inbox-items.js';
import { listInbox, type InboxListInput } from './runtime-inbox.js';

/**
 * The session-initiated paths into an inbox (docs/concepts.md, 05): follow-up,
 * enqueue, interrupt, and send_now / interrupt of a queued item. Each commits its delivery
 * first, then calls `recordUncleEdge` in its own transaction — the graph lock is never held
 * while delivering, and an edge that cannot be written never undoes a delivery.
 */
export type NewDeliveryAction = 'follow_up' | 'enqueue' | 'interrupt';

const NEW_ITEM: Record<NewDeliveryAction, { kind: InboxKind; mode: InboxMode }> = {
  follow_up: { kind: 'follow_up', mode: 'next_turn' },
  enqueue: { kind: 'enqueued', mode: 'when_idle' },
  interrupt: { kind: 'enqueued', mode: 'interrupt' },
};

const CAPTURE_SUFFIX: Record<NewDeliveryAction, string> = { follow_up: 'follow_up', enqueue: 'enqueued_message', interrupt: 'interrupt' };

/**
 * The capture entry point of a human's words (docs/human-messages.md's table), or null when nothing may be
 * captured: over MCP a model composed the arguments; fleet, session and client tokens
 * establish a caller, not a person.
 */
function captureEntryPoint(caller: Caller, action: NewDeliveryAction): EntryPoint | null {
  if (caller.principal.kind !== 'human' || caller.surface === 'mcp') return null;
  const channel = caller.surface === 'web' ? 'web_ui' : caller.surface === 'rest' ? 'cli' : null;
  return channel ? (`${channel}.${CAPTURE_SUFFIX[action]}` as EntryPoint) : null;
}

function uncleSource(caller: Caller, action: 'follow_up' | 'enqueue' | 'send_now' | 'interrupt'): UncleSource {
  return `${caller.surface === 'mcp' ? 'mcp' : 'rest'}.${action}`;
}

/**
 * The acting-session rules of docs/concepts.md: a session token is the actor (authenticated); a fleet
 * caller's declared session (declared) or `unresolved-acting-session`; a human or client has
 * none (`no-acting-session`). Only then are the seven rules evaluated.
 */
async function uncleEdgeForDelivery(ctx: AppContext, acting: Acting, targetId: number, source: UncleSource): Promise<UncleEdgeResult> {
  if (acting.actingOutcome === 'unresolved-acting-session' || acting.actingSession === null) {
    return {
      outcome: acting.actingOutcome === 'unresolved-acting-session' ? 'unresolved-acting-session' : 'no-acting-session',
      actingSessionId: null,
      targetSessionId: targetId,
      basis: null,
      source,
    };
  }
  return recordUncleEdge(ctx, {
    actingSessionId: acting.actingSession.id,
    targetSessionId: targetId,
    basis: acting.actingOutcome === 'authenticated' ? 'authenticated' : 'declared',
    source,
    attribution: attributionOf(acting),
  });
}

interface DeliveryInput {
  content: string;
  actingSessionId?: string | number | null;
  /**
   * The human's own words when they differ from the delivered content (the web chat
   * bubble's page-context wrapper is delivered, never recorded as the human's words).
   */
  humanWords?: string;
  /** a double submit of one web form delivers once (delivery-idempotency.ts) */
  idempotencyKey?: string | null;
}

export interface DeliveryResult {
  item: InboxItemView;
  uncleEdge: UncleEdgeResult;
  /** an idempotency-key replay: the earlier delivery, nothing new recorded */
  replayed?: boolean;
}

/** follow_up, enqueue, and interrupt with new content. */
export async function deliverNew(ctx: AppContext, caller: Caller, ref: string, action: NewDeliveryAction, input: DeliveryInput): Promise<DeliveryResult> {
  const content = checkInboxContent(input.content);
  checkActingSessionClaim(caller, input.actingSessionId);
  const delivered = await inWriteTx(ctx, async (w) => {
    const target = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'deliver', target);
    const key = input.idempotencyKey
      ? deliveryKey(caller, input.idempotencyKey, {
          action,
          session_id: target.id,
          content,
          human_words: input.humanWords ?? null,
          acting: input.actingSessionId ?? null,
        })
      : null;
    const earlier = key ? await claimDeliveryKey(w, key) : null;
    const prior = earlier === null ? null : await findInboxItem(w.tx, earlier);
    if (prior) {
      const acting = await resolveActing(w, caller, input.actingSessionId);
      const [view] = await inboxItemViews(w.tx, ctx, [prior], await visibilityOf(w.tx, ctx, caller));
      return { target, acting, view: view!, replayed: true };
    }
    requireDeliverable(target);
    const acting = await resolveActing(w, caller, input.actingSessionId);
    const item = await addInboxItem(w, { target, ...NEW_ITEM[action], content, acting });
    if (key) await completeDeliveryKey(w, key, target.id, item.id);
    // capture is part of the act: same transaction, or the delivery fails (docs/human-messages.md)
    const entryPoint = captureEntryPoint(caller, action);
    if (entryPoint) await captureHumanWords(w, caller, target, { entryPoint, content: input.humanWords ?? content, inboxItemId: item.id });
    const [view] = await inboxItemViews(w.tx, ctx, [item], await visibilityOf(w.tx, ctx, caller));
    return { target, acting, view: view!, replayed: false };
  });
  const uncleEdge = await uncleEdgeForDelivery(ctx, delivered.acting, delivered.target.id, uncleSource(caller, action));
  return { item: delivered.view, uncleEdge, ...(delivered.replayed ? { replayed: true } : {}) };
}

export interface QueueChangeResult {
  item: InboxItemView;
  /** false when the change had no effect and recorded nothing */
  changed: boolean;
  /** send_now and interrupt only, and only when they changed something */
  uncleEdge: UncleEdgeResult | null;
}

const CHANGE_EVENT: Record<QueueChange, string> = { send_now: 'inbox_item_promoted', interrupt: 'inbox_item_promoted', withdraw: 'inbox_item_withdrawn' };

/**
 * send_now, interrupt (of a queued item by id) and withdraw (docs/messages.md): only an `enqueued`
 * item of this session that is still pending; a change with no effect records nothing.
 */
export async function changeQueuedItem(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  itemId: number,
  change: QueueChange,
  input: { actingSessionId?: string | number | null } = {},
): Promise<QueueChangeResult> {
  checkActingSessionClaim(caller, input.actingSessionId);
  const done = await inWriteTx(ctx, async (w) => {
    const target = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'deliver', target);
    const acting = await resolveActing(w, caller, input.actingSessionId);
    // a lapsed lease has returned its item to the queue
    await lapseExpiredLeases(w.tx, w.now, target.id);
    let item = await findInboxItem(w.tx, itemId);
    if (!item || item.sessionId !== target.id || !isQueueItem(item.kind)) {
      throw new WarrantError('enqueued-message-not-found', `Session #${target.id} has no enqueued message ${itemId}.`, {
        details: { session_id: target.id, message_id: itemId },
      });
    }
    for (let attempt = 0; attempt < 8; attempt++) {
      const decision = decideQueueChange(item, change);
      if (decision.kind === 'refused') {
        throw new WarrantError(
          'enqueued-message-not-pending',
          `Enqueued message ${item.id} is ${decision.state}${decision.state === 'leased' ? ' (the runtime has taken it and may already be showing it)' : ''}; only a pending message can be ${change === 'withdraw' ? 'withdrawn' : 'promoted'}.`,
          { details: { message_id: item.id, state: decision.state } },
        );
      }
      if (decision.kind === 'noop') {
        const [view] = await inboxItemViews(w.tx, ctx, [item], await visibilityOf(w.tx, ctx, caller));
        return { target, acting, view: view!, changed: false };
      }
      const to = decision.to;
      const ok = await updateInboxItemIfState(
        w.tx,
        item.id,
        ['pending'],
        'state' in to ? { state: to.state, withdrawnAt: w.now } : { mode: to.mode },
        w.now,
        item.mode,
      );
      if (ok) {
        const details =
          'state' in to
            ? { inbox_item_id: item.id, kind: item.kind, mode: item.mode }
            : { inbox_item_id: item.id, kind: item.kind, action: change, old_mode: item.mode, new_mode: to.mode };
        await w.event(target.id, CHANGE_EVENT[change], details, attributionOf(acting));
        const fresh = (await findInboxItem(w.tx, item.id))!;
        inboxChanged(w, target, 'state' in to ? 'withdrawn' : 'promoted', [fresh]);
        // a withdrawn human message keeps its record; the withdrawal is its own row (docs/human-messages.md)
        if ('state' in to) await recordWithdrawal(w, acting, fresh);
        const [view] = await inboxItemViews(w.tx, ctx, [fresh], await visibilityOf(w.tx, ctx, caller));
        return { target, acting, view: view!, changed: true };
      }
      const fresh = await findInboxItem(w.tx, item.id);
      if (!fresh) throw new WarrantError('enqueued-message-not-found', `Enqueued message ${itemId} is gone.`, { details: { message_id: itemId } });
      item = fresh;
    }
    throw new WarrantError('store-unavailable', `Enqueued message ${itemId} kept changing; nothing was recorded. Retry.`);
  });
  const uncleEdge = done.changed && change !== 'withdraw' ? await uncleEdgeForDelivery(ctx, done.acting, done.target.id, uncleSource(caller, change)) : null;
  return { item: done.view, changed: done.changed, uncleEdge };
}

/** `GET …/enqueued_messages`: the session's queue (what is not yet delivered unless asked otherwise). */
export async function listEnqueued(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: Omit<InboxListInput, 'kinds'>,
): Promise<{ session: SessionRecord; items: InboxItemView[]; nextCursor: string | null }> {
  return listInbox(ctx, caller, ref, { ...input, kinds: ['enqueued'] });
}
