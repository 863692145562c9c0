import type { ConversationView } from '../app/conversations/conversation-history.js';
import type { MessageReceipt, MessageView } from '../app/messages/message-views.js';

/** Wire forms (snake_case) of agent messages and conversation history, shared by REST and MCP (docs/messages.md). */
function serializeReceipt(r: MessageReceipt) {
  return {
    id: r.id,
    ref: r.ref,
    ref_minted: r.refMinted,
    conversation_ref: r.conversationRef,
    reply_to: r.replyTo,
    source: { session_id: r.source.sessionId, basis: r.source.basis, activation: r.source.activation, provider_conversation: r.source.providerConversation },
    target: { session_id: r.target.sessionId, provider_conversation: r.target.providerConversation },
    deadline: r.deadline,
    payload_bytes: r.payloadBytes,
    payload_sha256: r.payloadSha256,
    accepted_at: r.acceptedAt,
    inbox_item_id: r.inboxItemId,
  };
}

export function serializeMessage(m: MessageView) {
  return {
    ...serializeReceipt(m),
    state: m.state,
    terminal_at: m.terminalAt,
    // the store keeps the reason as text; these three are the values it writes (docs/messages.md)
    terminal_reason: m.terminalReason as 'acknowledged' | 'deadline' | 'target-deleted' | null,
    payload: m.payload,
    payload_reclaimed_at: m.payloadReclaimedAt,
    reply_id: m.replyId,
  };
}

export function serializeSendResult(r: { receipt: MessageReceipt; replayed: boolean }) {
  return { message: serializeReceipt(r.receipt), replayed: r.replayed };
}

export function serializeConversation(c: ConversationView) {
  return {
    provider: c.provider,
    conversation_id: c.conversationId,
    status: c.status,
    observed_at: c.observedAt,
    transcript_path: c.transcriptPath,
    first_observed_at: c.firstObservedAt,
    observations: c.observations,
    sources: c.sources,
    affiliation: { title: c.title, owner: c.owner, origin_id: c.originId },
  };
}
