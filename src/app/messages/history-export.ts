import { MESSAGE_HISTORY_SCHEMA_VERSION, type MessageHistoryLine } from '../../core/message-history-format.js';
import type { Executor } from '../../store/dialect/dialect.js';
import { countHistory, historyPage, type HistoryRecord } from '../../store/messages-repo.js';

/** One history row as its JSON Lines record (docs/messages.md: `schema_version` 1, no payload). */
function historyLine(h: HistoryRecord): MessageHistoryLine {
  return {
    schema_version: MESSAGE_HISTORY_SCHEMA_VERSION,
    id: h.messageId,
    ref: h.ref,
    conversation_ref: h.conversationRef,
    reply_to: h.replyTo,
    source: { session_id: h.sourceSessionId, basis: h.sourceBasis, activation: h.sourceActivation, provider_conversation: h.sourceConversation },
    target: { session_id: h.targetSessionId, provider_conversation: h.targetConversation },
    deadline: h.deadline,
    payload_bytes: h.payloadBytes,
    payload_sha256: h.payloadSha256,
    state: h.state,
    accepted_at: h.acceptedAt,
    terminal_at: h.terminalAt,
    terminal_reason: h.terminalReason,
  };
}

/** `warrant messages export`: every history row in the order it was recorded, one JSON line each. */
export async function* exportHistoryLines(db: Executor, options: { onProgress?: (done: number, total: number) => void } = {}): AsyncGenerator<string> {
  const total = await countHistory(db);
  let after = 0;
  let done = 0;
  for (;;) {
    const page = await historyPage(db, after, 1000);
    if (page.length === 0) return;
    for (const h of page) yield JSON.stringify(historyLine(h));
    done += page.length;
    after = page[page.length - 1]!.seq;
    options.onProgress?.(done, Math.max(total, done));
  }
}
