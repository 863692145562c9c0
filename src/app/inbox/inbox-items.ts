import { actorRefString } from '../../core/actors.js';
import { WarrantError } from '../../core/errors.js';
import { effectiveState, MAX_INBOX_CONTENT_BYTES, type InboxKind, type InboxMode, type InboxState } from '../../core/inbox-rules.js';
import type { Executor } from '../../store/dialect/dialect.js';
import { insertInboxItem, type InboxItemRecord } from '../../store/inbox-repo.js';
import type { SessionRecord } from '../../store/sessions-repo.js';
import { attributionOf, type Acting } from '../acting.js';
import type { AppContext } from '../context.js';
import { actorAndCause, actorViews, isHiddenSession, type ActorView, type Visibility } from '../views.js';
import type { WriteScope } from '../write-scope.js';

/** An inbox item as every surface shows it: sender and cause expanded, the effective state. */
export interface InboxItemView {
  id: number;
  sessionId: number;
  kind: InboxKind;
  mode: InboxMode;
  /** effective: a lapsed lease reads as `pending` */
  state: InboxState;
  content: string;
  details: Record<string, unknown>;
  sender: (ActorView & { basis: string | null }) | null;
  senderSessionId: number | null;
  cause: (ActorView & { basis: string | null }) | null;
  leaseExpiresAt: string | null;
  leasedAt: string | null;
  leaseCount: number;
  deliveredAt: string | null;
  withdrawnAt: string | null;
  /** agent messages: the deadline after which the item expires undelivered (docs/messages.md) */
  expiresAt: string | null;
  /** written into the agent by its runner, and until when its prompt report was awaited */
  writtenAt: string | null;
  writtenDeadline: string | null;
  /** a stop's control item whose runtime ended */
  retiredAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** `visibility`: whose eyes — a sender or cause the reader may not see is an unnamed session. */
export async function inboxItemViews(db: Executor, ctx: AppContext, items: readonly InboxItemRecord[], visibility: Visibility): Promise<InboxItemView[]> {
  const now = ctx.clock.now().toISOString();
  const actors = await actorViews(
    db,
    ctx,
    items.flatMap((i) => [i.senderActorId, i.causeActorId]),
    visibility,
  );
  return items.map((i) => {
    const state = effectiveState(i, now);
    const { actor: sender, cause } = actorAndCause(actors, i.senderActorId, i.causeActorId);
    return {
      id: i.id,
      sessionId: i.sessionId,
      kind: i.kind,
      mode: i.mode,
      state,
      content: i.content,
      details: i.details,
      sender: sender === null ? null : { ...sender, basis: i.senderBasis },
      // the sending session is the sender actor: hidden together
      senderSessionId: isHiddenSession(sender) ? null : i.senderSessionId,
      cause: cause === null ? null : { ...cause, basis: i.causeBasis },
      leaseExpiresAt: state === 'leased' ? i.leaseExpiresAt : null,
      leasedAt: i.leasedAt,
      leaseCount: i.leaseCount,
      deliveredAt: i.deliveredAt,
      withdrawnAt: i.withdrawnAt,
      expiresAt: i.expiresAt,
      writtenAt: i.writtenAt,
      writtenDeadline: i.writtenDeadline,
      retiredAt: i.retiredAt,
      createdAt: i.createdAt,
      updatedAt: i.updatedAt,
    };
  });
}

/** Content is text the runtime will hand to its model: non-empty, bounded. */
export function checkInboxContent(content: unknown, field = 'content'): string {
  if (typeof content !== 'string' || content.trim() === '') {
    throw new WarrantError('invalid-request', `${field}: must be non-empty text.`, { details: { field } });
  }
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > MAX_INBOX_CONTENT_BYTES) {
    throw new WarrantError(
      'content-too-large',
      `${field} is ${bytes} bytes; the limit is ${MAX_INBOX_CONTENT_BYTES}. Put large text in a file the session can read and send its path.`,
      {
        details: { field, limit: MAX_INBOX_CONTENT_BYTES },
      },
    );
  }
  return content;
}

/** docs/messages.md (agent messages' `target-unavailable`): nothing is delivered to an archived session. */
export function requireDeliverable(target: SessionRecord): void {
  if (target.status === 'archived') {
    throw new WarrantError('target-unavailable', `Session #${target.id} is archived; nothing was delivered. Unarchive it first if it should run again.`, {
      details: { session_id: target.id, status: target.status },
    });
  }
}

/** `inbox_changed` (docs/api.md) for a listening runtime or UI; ids and states only, never content. */
export function inboxChanged(
  w: WriteScope,
  target: Pick<SessionRecord, 'id' | 'ownerUserId'>,
  change: string,
  items: readonly { id: number; kind: InboxKind; mode: InboxMode; state: InboxState }[],
): void {
  w.live({
    type: 'inbox_changed',
    sessionId: target.id,
    ownerUserId: target.ownerUserId,
    payload: { session_id: target.id, change, items: items.map((i) => ({ id: i.id, kind: i.kind, mode: i.mode, state: i.state })) },
  });
}

interface NewItem {
  target: SessionRecord;
  kind: InboxKind;
  mode: InboxMode;
  content: string;
  details?: Record<string, unknown>;
  /** who sent it, on whose behalf, with which credential */
  acting: Acting;
  /** agent messages: the deadline after which it expires undelivered (docs/messages.md) */
  expiresAt?: string;
  /** added to the details of `inbox_item_added` and `inbox_item_sent` (an agent message's id) */
  eventDetails?: Record<string, unknown>;
}

/**
 * The one way an item enters an inbox (docs/messages.md), inside the caller's transaction: the row,
 * `inbox_item_added` on the target's timeline, `inbox_item_sent` on the sending session's own
 * timeline when a session sent words (not for a stop's control item: the `stop_requested`
 * event already records that act), and `inbox_changed` at commit.
 */
export async function addInboxItem(w: WriteScope, input: NewItem): Promise<InboxItemRecord> {
  const { acting, target } = input;
  const senderSessionId = acting.actingSession?.id ?? null;
  const inserted = await insertInboxItem(w.tx, {
    sessionId: target.id,
    kind: input.kind,
    mode: input.mode,
    content: input.content,
    details: input.details ?? {},
    senderActorId: acting.actorId,
    senderBasis: acting.actorBasis,
    senderSessionId,
    causeActorId: acting.causeActorId,
    causeBasis: acting.causeBasis,
    credentialId: acting.credentialId,
    now: w.now,
    expiresAt: input.expiresAt ?? null,
    // the reply rule of docs/messages.md compares these with the sessions' conversations at reply time
    senderConversation: acting.actingSession?.providerConversation ?? null,
    targetConversation: target.providerConversation,
  });
  const id = inserted.id;
  const attribution = attributionOf(acting);
  const sender = { kind: acting.actor.kind, ref: actorRefString(acting.actor) || null, basis: acting.actorBasis };
  const events: { sessionId: number; type: string; details: Record<string, unknown> }[] = [
    {
      sessionId: target.id,
      type: 'inbox_item_added',
      details: { inbox_item_id: id, kind: input.kind, mode: input.mode, sender, sender_session_id: senderSessionId, ...input.eventDetails },
    },
  ];
  if (senderSessionId !== null && input.kind !== 'control') {
    events.push({
      sessionId: senderSessionId,
      type: 'inbox_item_sent',
      details: { inbox_item_id: id, kind: input.kind, mode: input.mode, to_session_id: target.id, sender_basis: acting.actorBasis, ...input.eventDetails },
    });
  }
  // Each event locks its session's row (the per-session seq): lock in id order, so A → B and
  // B → A sent at the same moment cannot deadlock.
  events.sort((x, y) => x.sessionId - y.sessionId);
  await w.events(events, attribution);
  inboxChanged(w, target, 'added', [{ id, kind: input.kind, mode: input.mode, state: 'pending' }]);
  return inserted;
}
