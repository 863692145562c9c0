import type { ConversationView } from '../app/conversations/conversation-history.js';
import type { MessageReceipt, MessageView } from '../app/messages/message-views.js';
import { sanitizeBlock, sanitizeInline } from './sanitize.js';

/** Text renderings of agent messages, shared by MCP tools, the CLI and `format=markdown` (docs/messages.md, docs/api.md). */
export function renderReceipt(r: MessageReceipt, replayed: boolean): string {
  const head = replayed
    ? `Already accepted: message ${r.id} (ref ${sanitizeInline(r.ref)}) — this is its original receipt; nothing was delivered again.`
    : `Accepted message ${r.id} (ref ${sanitizeInline(r.ref)}${r.refMinted ? ', minted' : ''}) for session #${r.target.sessionId}.`;
  return [
    head,
    `- from: session #${r.source.sessionId} (${r.source.basis}, activation ${r.source.activation})`,
    `- conversation: ${r.conversationRef}${r.replyTo ? ` · reply to ${r.replyTo}` : ''}`,
    `- deadline: ${r.deadline} (undelivered by then, it expires)`,
    `- payload: ${r.payloadBytes} bytes, sha256 ${r.payloadSha256}`,
  ].join('\n');
}

const STATE_TEXT: Record<string, string> = {
  accepted: 'accepted — waiting for its target to acknowledge it',
  delivered: 'delivered — its target acknowledged it',
  expired: 'expired — its deadline passed before its target acknowledged it',
  failed: 'failed — its target was deleted before acknowledging it',
};

/** A message state in words, the same sentence on every surface. */
export function messageStateText(state: string): string {
  return STATE_TEXT[state] ?? state;
}

export function renderMessageStatus(m: MessageView): string {
  const lines = [
    `Message ${m.id}: ${messageStateText(m.state)}${m.terminalAt ? ` (${m.terminalAt})` : ''}.`,
    `- from: session #${m.source.sessionId} (${m.source.basis}, activation ${m.source.activation}${m.source.providerConversation ? `, conversation ${sanitizeInline(m.source.providerConversation)}` : ''})`,
    `- to: session #${m.target.sessionId}${m.target.providerConversation ? ` (conversation ${sanitizeInline(m.target.providerConversation)})` : ''}`,
    `- ref: ${sanitizeInline(m.ref)} · conversation: ${m.conversationRef}${m.replyTo ? ` · reply to ${m.replyTo}` : ''}`,
    `- accepted: ${m.acceptedAt} · deadline: ${m.deadline}`,
    `- reply: ${m.replyId ?? 'none yet'}`,
    `- payload: ${m.payloadBytes} bytes, sha256 ${m.payloadSha256}${m.payloadReclaimedAt ? ` — reclaimed by retention at ${m.payloadReclaimedAt}` : ''}`,
  ];
  if (m.payload !== null) lines.push('', sanitizeBlock(m.payload, '    '));
  return lines.join('\n');
}

// `observed` (the wire status) reads "earlier": the source list says who reported it
const STATUS_TEXT: Record<string, string> = { current: 'current', observed: 'earlier', estimated: 'estimated (backfilled from a transcript)' };

export function renderConversations(sessionId: number, conversations: readonly ConversationView[]): string {
  if (conversations.length === 0) return `Session #${sessionId} has no provider conversation recorded.`;
  return [
    `Session #${sessionId}'s provider conversations:`,
    ...conversations.map(
      (c) =>
        `- ${sanitizeInline(c.conversationId)} (${sanitizeInline(c.provider ?? 'unknown provider')}) — ${STATUS_TEXT[c.status]}${c.sources.length > 0 ? `, source: ${c.sources.join(', ')}` : ''}${c.observedAt ? `, last seen ${c.observedAt}` : ''}${c.transcriptPath ? `, transcript ${sanitizeInline(c.transcriptPath)}` : ''}`,
    ),
  ].join('\n');
}
