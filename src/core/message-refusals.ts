import { WarrantError, type KnownErrorToken } from './errors.js';
import { deadlineAfter, DEFAULT_TTL_SECONDS, type ValidEnvelope } from './message-envelope.js';

/**
 * docs/messages.md: each refusal names its cause with one token, and each token asks
 * for one action. When several apply, the first in this table wins — `decideSend` evaluates
 * them in exactly this order over facts the app layer gathered (reads only), so every refusal
 * but `outcome-unknown` happens before anything is written. Each token's HTTP status is its
 * row in ERROR_STATUS (core/errors.ts).
 */
export const MESSAGE_REFUSALS = {
  'envelope-invalid': { action: 'correct it and send with a fresh ref' },
  'ref-content-mismatch': { action: 'use a fresh ref' },
  'source-activation-stale': { action: 'wait for the current activation, or let it reply' },
  'target-not-found': { action: 'check the session ref' },
  'target-unavailable': { action: 'do not resend' },
  'reply-sender-unverified': { action: 'reply from the session itself' },
  'reply-original-not-found': { action: 'send a new message without reply_to' },
  'reply-operator-origin': { action: 'there is no session to answer; do not reply' },
  'reply-correlation-mismatch': { action: 'check that reply_to names a message you received and that to is its sender' },
  'reply-original-not-delivered': { action: 'inspect it with GET /api/v1/messages/:id; do not reply' },
  'reply-conversation-changed': { action: 'send a new message without reply_to' },
  'reply-deadline-expired': { action: 'send a new message without reply_to' },
  'reply-deadline-extended': { action: 'send without a longer ttl' },
  'reply-already-committed': { action: 'inspect it; do not resend' },
  'store-unavailable': { action: 'retry' },
  'store-capacity': { action: 'wait for retention to reclaim' },
  'outcome-unknown': { action: 'inspect the message status; do not resend' },
} as const satisfies Partial<Record<KnownErrorToken, { action: string }>>;

export type MessageRefusalToken = keyof typeof MESSAGE_REFUSALS;

/** The table's order, for documentation and tests. */
export const MESSAGE_REFUSAL_ORDER = Object.keys(MESSAGE_REFUSALS) as MessageRefusalToken[];

/**
 * The refusal as every surface carries it: REST `{error, message, action, previous_id?}`, the
 * same body as an MCP tool error, and the token on the CLI.
 */
export function messageRefusal(token: MessageRefusalToken | 'session-not-live', message: string, details: Record<string, unknown> = {}): WarrantError {
  if (token === 'session-not-live') return new WarrantError(token, message, { details });
  const r = MESSAGE_REFUSALS[token];
  return new WarrantError(token, message, { details: { action: r.action, ...details } });
}

/**
 * Who sent an inbox item that no session sent: there is no session to answer (docs/messages.md). A
 * human's item names the client it came through (`web_ui`, `cli`, `slack`; null when it was
 * not captured there, e.g. over MCP); the fleet, an integration client or Warrant itself have
 * no client. `actor` names the sender either way.
 */
interface OperatorOrigin {
  kind: 'operator';
  client: 'web_ui' | 'cli' | 'slack' | null;
  actor: { kind: string; ref: string | null };
}

/** What `reply_to` names, as the app layer found it (visibility applied). */
export type OriginalFacts =
  /** nothing by that id that the caller may see, or retention reclaimed it */
  | { kind: 'not-found'; reclaimed: boolean }
  | { kind: 'operator'; origin: OperatorOrigin }
  | {
      kind: 'session-sent';
      /** the canonical reply_to (a message id, or an inbox item id's digits) */
      id: string;
      /** an agent message: its id; a plain inbox item a session sent: null */
      messageId: string | null;
      sourceSessionId: number;
      targetSessionId: number;
      delivered: boolean;
      /** agent messages only; an inbox item has none */
      deadline: string | null;
      conversationRef: string | null;
      sourceConversationAtSend: string | null;
      targetConversationAtSend: string | null;
      /** null when the session no longer exists or has no conversation bound */
      sourceConversationNow: string | null;
      targetConversationNow: string | null;
    };

export interface SendFacts {
  now: string;
  envelope: ValidEnvelope;
  sender: {
    sessionId: number;
    /** a session token proves the sender; a fleet key's acting_session_id only declares it */
    basis: 'authenticated' | 'declared';
    messaging: 'full' | 'reply-only';
    /** the activation of the token used (session tokens), null for a declared sender */
    tokenActivation: number | null;
    currentActivation: number;
    /** running or idle: a token of a session that is not is inert (docs/concepts.md) */
    live: boolean;
  };
  /** an earlier message of this sender with the same ref */
  sameRef: { messageId: string; sameContent: boolean } | null;
  /** `to` resolved through the caller's visibility, or — for a reply without `to` — the original's source */
  target: { kind: 'found'; sessionId: number; archived: boolean } | { kind: 'not-found' } | { kind: 'unknown' };
  original: OriginalFacts | null;
  /** the reply already committed to this original, when one */
  existingReplyId: string | null;
  /** messages holding a payload, the configured capacity, and terminal ones that could be reclaimed now */
  capacity: { held: number; limit: number; reclaimable: number };
}

type SendDecision =
  | { kind: 'receipt'; messageId: string }
  | { kind: 'refused'; token: MessageRefusalToken | 'session-not-live'; message: string; details: Record<string, unknown> }
  | {
      kind: 'accept';
      deadline: string;
      /** inherited from the original; null: a fresh one */
      conversationRef: string | null;
      /** terminal payloads to reclaim first, so the store stays within its capacity */
      reclaim: number;
    };

/** A conversation first bound after the original (null, then set) is not a change (docs/messages.md). */
export function conversationChanged(atSend: string | null, now: string | null): boolean {
  return atSend !== null && now !== null && atSend !== now;
}

function refused(token: MessageRefusalToken | 'session-not-live', message: string, details: Record<string, unknown> = {}): SendDecision {
  return { kind: 'refused', token, message, details };
}

/**
 * The one decision over a send: a retry's receipt, the first refusal of the table, or what
 * to accept. Pure; the app layer gathers the facts and performs the writes.
 */
export function decideSend(f: SendFacts): SendDecision {
  const e = f.envelope;
  const replyToText = f.original ? (f.original.kind === 'session-sent' ? f.original.id : null) : null;

  // docs/messages.md: checked right after the envelope is validated, before any other refusal
  if (f.sameRef?.sameContent) return { kind: 'receipt', messageId: f.sameRef.messageId };

  // a reply-only session's send only permits replies (docs/messages.md): a new message is not a valid envelope for it
  if (f.sender.messaging === 'reply-only' && e.replyTo === null) {
    return refused('envelope-invalid', `Session #${f.sender.sessionId} is reply-only: it may only answer a message it received (give reply_to).`, {
      field: 'reply_to',
      reason: 'reply-only-session',
    });
  }
  if (f.sameRef) {
    return refused(
      'ref-content-mismatch',
      `The ref ${JSON.stringify(e.ref)} was used before for message ${f.sameRef.messageId} with different content (to, reply_to or payload).`,
      { previous_id: f.sameRef.messageId },
    );
  }
  if (f.sender.tokenActivation !== null && f.sender.tokenActivation !== f.sender.currentActivation) {
    return refused(
      'source-activation-stale',
      `This token belongs to activation ${f.sender.tokenActivation} of session #${f.sender.sessionId}; the current activation is ${f.sender.currentActivation}.`,
      {
        token_activation: f.sender.tokenActivation,
        current_activation: f.sender.currentActivation,
      },
    );
  }
  // an inert token (its session is not running or idle) writes nothing (docs/concepts.md)
  if (f.sender.tokenActivation !== null && !f.sender.live) {
    return refused('session-not-live', `Session #${f.sender.sessionId} is not running; its token can read but not send until a runtime attaches again.`);
  }
  if (f.target.kind === 'not-found') {
    return refused(
      'target-not-found',
      e.to !== null ? `No session you can see matches ${JSON.stringify(e.to)}.` : 'The sender of the original no longer exists.',
      e.to !== null ? { to: e.to } : {},
    );
  }
  if (f.target.kind === 'found' && f.target.archived) {
    return refused('target-unavailable', `Session #${f.target.sessionId} is archived; nothing was sent.`, { session_id: f.target.sessionId });
  }

  let deadline = deadlineAfter(f.now, e.ttlSeconds ?? DEFAULT_TTL_SECONDS);
  let conversationRef: string | null = null;
  if (e.replyTo !== null) {
    if (f.sender.basis !== 'authenticated') {
      return refused(
        'reply-sender-unverified',
        'A reply must come from the session itself (its session token): a declared acting session is a routing claim and cannot answer anything.',
      );
    }
    const o = f.original;
    if (!o || o.kind === 'not-found') {
      return refused(
        'reply-original-not-found',
        o?.reclaimed ? 'The original was reclaimed by retention; only its history remains.' : 'No message or inbox item you received has that id.',
        { reply_to: e.replyTo.kind === 'message' ? e.replyTo.id : String(e.replyTo.id) },
      );
    }
    if (o.kind === 'operator') {
      return refused('reply-operator-origin', 'The original is an inbox item no session sent (an operator origin): there is no session to answer.', {
        origin: o.origin,
      });
    }
    if (o.targetSessionId !== f.sender.sessionId) {
      return refused('reply-correlation-mismatch', `Session #${f.sender.sessionId} is not the original's target (#${o.targetSessionId}).`, {
        original_target_session_id: o.targetSessionId,
      });
    }
    if (f.target.kind === 'found' && f.target.sessionId !== o.sourceSessionId) {
      return refused('reply-correlation-mismatch', `A reply goes to the original's sender (#${o.sourceSessionId}), not #${f.target.sessionId}.`, {
        original_source_session_id: o.sourceSessionId,
      });
    }
    if (!o.delivered) {
      return refused('reply-original-not-delivered', `The original ${replyToText} was never acknowledged by its target.`, { reply_to: replyToText });
    }
    if (conversationChanged(o.sourceConversationAtSend, o.sourceConversationNow) || conversationChanged(o.targetConversationAtSend, o.targetConversationNow)) {
      const which = conversationChanged(o.sourceConversationAtSend, o.sourceConversationNow) ? o.sourceSessionId : o.targetSessionId;
      return refused('reply-conversation-changed', `Session #${which} now runs in another provider conversation than when the original was sent.`, {
        session_id: which,
      });
    }
    if (o.deadline !== null) {
      if (f.now >= o.deadline) return refused('reply-deadline-expired', `The original's deadline (${o.deadline}) has passed.`, { deadline: o.deadline });
      if (e.ttlSeconds !== null && deadline > o.deadline) {
        return refused(
          'reply-deadline-extended',
          `A ttl of ${e.ttlSeconds} s would end after the original's deadline (${o.deadline}); a reply cannot extend it.`,
          { deadline: o.deadline },
        );
      }
      if (e.ttlSeconds === null) deadline = o.deadline;
    }
    if (f.existingReplyId !== null) {
      return refused('reply-already-committed', `Message ${f.existingReplyId} already answers ${replyToText}.`, { previous_id: f.existingReplyId });
    }
    conversationRef = o.conversationRef;
  }

  const need = f.capacity.held + 1 - f.capacity.limit;
  if (need > 0 && f.capacity.reclaimable < need) {
    return refused(
      'store-capacity',
      `The message store holds ${f.capacity.held} messages, its configured capacity is ${f.capacity.limit}, and none can be reclaimed yet (they are not delivered or expired).`,
      {
        held: f.capacity.held,
        capacity: f.capacity.limit,
      },
    );
  }
  return { kind: 'accept', deadline, conversationRef, reclaim: Math.max(0, need) };
}
