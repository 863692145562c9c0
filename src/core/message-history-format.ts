import type { MessageState } from './message-envelope.js';

/**
 * docs/messages.md: the JSON Lines format of `warrant messages export`. One line per
 * terminal message: the envelope's keys, `payload_bytes` and `payload_sha256` — never the
 * payload. `schema_version` starts at 1 and every added key is additive: a reader ignores keys
 * it does not know and reads an absent key as its zero value (`readHistoryLine` does exactly
 * that, and is what the tests hold the exporter to).
 */
export const MESSAGE_HISTORY_SCHEMA_VERSION = 1;

export interface MessageHistoryLine {
  schema_version: number;
  id: string;
  ref: string;
  conversation_ref: string;
  reply_to: string | null;
  source: { session_id: number; basis: string; activation: number; provider_conversation: string | null };
  target: { session_id: number; provider_conversation: string | null };
  deadline: string;
  payload_bytes: number;
  payload_sha256: string;
  state: MessageState | '';
  accepted_at: string;
  terminal_at: string;
  /** why it became terminal: `acknowledged`, `deadline`, `target-deleted` */
  terminal_reason: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const nullableStr = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * Reads one exported line the way every reader must: unknown keys ignored, absent keys as
 * zero values (`''`, `0`, `null` for the keys that may be null). Throws on a line that is not
 * a JSON object.
 * @example readHistoryLine('{"schema_version":1,"id":"msg_…","future_key":true}').payload_bytes // 0
 */
export function readHistoryLine(line: string): MessageHistoryLine {
  const parsed: unknown = JSON.parse(line);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('a message history line is a JSON object');
  const v = parsed as Record<string, unknown>;
  const source = obj(v.source);
  const target = obj(v.target);
  const state = str(v.state);
  return {
    schema_version: num(v.schema_version),
    id: str(v.id),
    ref: str(v.ref),
    conversation_ref: str(v.conversation_ref),
    reply_to: nullableStr(v.reply_to),
    source: {
      session_id: num(source.session_id),
      basis: str(source.basis),
      activation: num(source.activation),
      provider_conversation: nullableStr(source.provider_conversation),
    },
    target: { session_id: num(target.session_id), provider_conversation: nullableStr(target.provider_conversation) },
    deadline: str(v.deadline),
    payload_bytes: num(v.payload_bytes),
    payload_sha256: str(v.payload_sha256),
    state: (['accepted', 'delivered', 'expired', 'failed'].includes(state) ? state : '') as MessageState | '',
    accepted_at: str(v.accepted_at),
    terminal_at: str(v.terminal_at),
    terminal_reason: str(v.terminal_reason),
  };
}
