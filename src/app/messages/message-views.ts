import { effectiveMessageState, type MessageState } from '../../core/message-envelope.js';
import type { MessageRecord } from '../../store/messages-repo.js';

/**
 * docs/messages.md: what a sender gets back when a message is accepted — and, for
 * a retry with the same ref and content, gets back again unchanged. Every field is fixed at
 * acceptance; state lives in the status (`MessageView`).
 */
export interface MessageReceipt {
  id: string;
  ref: string;
  refMinted: boolean;
  conversationRef: string;
  replyTo: string | null;
  source: { sessionId: number; basis: 'authenticated' | 'declared'; activation: number; providerConversation: string | null };
  target: { sessionId: number; providerConversation: string | null };
  deadline: string;
  payloadBytes: number;
  payloadSha256: string;
  acceptedAt: string;
  inboxItemId: number | null;
}

/** `GET /api/v1/messages/:id`: the envelope with its effective state and payload (null once reclaimed). */
export interface MessageView extends MessageReceipt {
  state: MessageState;
  terminalAt: string | null;
  /** `acknowledged`, `deadline`, `target-deleted` */
  terminalReason: string | null;
  payload: string | null;
  payloadReclaimedAt: string | null;
  /** the reply committed to this message, when one */
  replyId: string | null;
}

export function receiptOf(
  m: Pick<
    MessageRecord,
    | Exclude<keyof MessageReceipt, 'source' | 'target'>
    | 'sourceSessionId'
    | 'sourceBasis'
    | 'sourceActivation'
    | 'sourceConversation'
    | 'targetSessionId'
    | 'targetConversation'
  >,
): MessageReceipt {
  return {
    id: m.id,
    ref: m.ref,
    refMinted: m.refMinted,
    conversationRef: m.conversationRef,
    replyTo: m.replyTo,
    source: { sessionId: m.sourceSessionId, basis: m.sourceBasis, activation: m.sourceActivation, providerConversation: m.sourceConversation },
    target: { sessionId: m.targetSessionId, providerConversation: m.targetConversation },
    deadline: m.deadline,
    payloadBytes: m.payloadBytes,
    payloadSha256: m.payloadSha256,
    acceptedAt: m.acceptedAt,
    inboxItemId: m.inboxItemId,
  };
}

export function messageView(m: MessageRecord, nowIso: string, replyId: string | null): MessageView {
  const effective = effectiveMessageState(m, nowIso);
  return {
    ...receiptOf(m),
    state: effective.state,
    terminalAt: effective.terminalAt,
    terminalReason: m.state === 'accepted' && effective.state === 'expired' ? 'deadline' : m.terminalReason,
    payload: m.payload,
    payloadReclaimedAt: m.reclaimedAt,
    replyId,
  };
}
