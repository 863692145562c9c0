import { parseSessionRef } from './session-ref.js';
import { hasLoneSurrogate } from './text.js';

/**
 * docs/messages.md: the limits of a message and the validation of what a sender
 * sends. Pure: the app layer hashes, resolves and stores. Anything wrong with the message
 * itself is `envelope-invalid` (422), whatever its field, so a sender always gets the same
 * one action for it: correct it and send with a fresh ref.
 */
export const MESSAGE_ID_PREFIX = 'msg_';
export const CONVERSATION_REF_PREFIX = 'conv_';
export const MINTED_REF_PREFIX = 'ref_';
export const MAX_PAYLOAD_BYTES = 64 * 1024;
export const MIN_TTL_SECONDS = 1;
export const MAX_TTL_SECONDS = 86_400;
export const DEFAULT_TTL_SECONDS = 900;
export const MAX_REF_LENGTH = 200;
export const MAX_TO_LENGTH = 200;

const MESSAGE_ID_RE = /^msg_[0-9a-f]{32}$/;

/** Whether `text` has the shape of a server-assigned message id. */
export function isMessageId(text: string): boolean {
  return MESSAGE_ID_RE.test(text);
}

/**
 * What `reply_to` names: an agent message (`msg_…`), or an inbox item the session received
 * (its integer id, given as a number or as digits).
 */
type ReplyToRef = { kind: 'message'; id: string } | { kind: 'inbox-item'; id: number };

/** The canonical text of a reply_to: the message id, or the item id's digits. */
function replyToText(r: ReplyToRef): string {
  return r.kind === 'message' ? r.id : String(r.id);
}

export interface EnvelopeInput {
  ref?: unknown;
  to?: unknown;
  payload?: unknown;
  ttl?: unknown;
  reply_to?: unknown;
}

/** A validated request: what the sender asked for, before anything is resolved. */
export interface ValidEnvelope {
  /** null: the server mints one */
  ref: string | null;
  /** the target ref as given (trimmed), or null for a reply that names none */
  to: string | null;
  payload: string;
  payloadBytes: number;
  /** null: the default (900 s, or the original's remaining time for a reply) */
  ttlSeconds: number | null;
  replyTo: ReplyToRef | null;
}

type EnvelopeCheck = { ok: true; envelope: ValidEnvelope } | { ok: false; field: string; reason: string };

function fail(field: string, reason: string): EnvelopeCheck {
  return { ok: false, field, reason };
}

/** UTF-8 length without node:Buffer (core stays portable). */
function utf8Length(text: string): number {
  let n = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

function checkRef(raw: unknown): { ok: true; value: string | null } | { ok: false; reason: string } {
  if (raw === undefined || raw === null) return { ok: true, value: null };
  if (typeof raw !== 'string') return { ok: false, reason: 'must be text' };
  if (raw.length === 0 || raw.length > MAX_REF_LENGTH) return { ok: false, reason: `must be 1 to ${MAX_REF_LENGTH} characters` };

  if (/[\u0000-\u001f\u007f]/.test(raw) || hasLoneSurrogate(raw)) return { ok: false, reason: 'must be printable text' };
  return { ok: true, value: raw };
}

function checkReplyTo(raw: unknown): { ok: true; value: ReplyToRef | null } | { ok: false; reason: string } {
  if (raw === undefined || raw === null) return { ok: true, value: null };
  if (typeof raw === 'number') {
    return Number.isSafeInteger(raw) && raw > 0
      ? { ok: true, value: { kind: 'inbox-item', id: raw } }
      : { ok: false, reason: 'an inbox item id is a positive whole number' };
  }
  if (typeof raw !== 'string') return { ok: false, reason: 'must be a message id (msg_…) or an inbox item id' };
  const text = raw.trim();
  if (isMessageId(text)) return { ok: true, value: { kind: 'message', id: text } };
  if (/^[0-9]{1,16}$/.test(text)) {
    const id = Number(text);
    if (Number.isSafeInteger(id) && id > 0) return { ok: true, value: { kind: 'inbox-item', id } };
  }
  return { ok: false, reason: 'must be a message id (msg_ and 32 hex digits) or an inbox item id' };
}

/**
 * Validates a message as sent (REST body, MCP arguments, CLI flags all arrive here).
 * @example checkEnvelope({to: '42', payload: 'hi'}) // {ok: true, envelope: {to: '42', payload: 'hi', ttlSeconds: null, …}}
 * @example checkEnvelope({payload: 'hi'}) // {ok: false, field: 'to', reason: 'required for a new message (one without reply_to)'}
 */
export function checkEnvelope(input: EnvelopeInput): EnvelopeCheck {
  const ref = checkRef(input.ref);
  if (!ref.ok) return fail('ref', ref.reason);

  const replyTo = checkReplyTo(input.reply_to);
  if (!replyTo.ok) return fail('reply_to', replyTo.reason);

  let to: string | null = null;
  if (input.to !== undefined && input.to !== null) {
    if (typeof input.to === 'number') {
      if (!Number.isSafeInteger(input.to) || input.to <= 0) return fail('to', 'a session id is a positive whole number');
      to = String(input.to);
    } else if (typeof input.to === 'string') {
      to = input.to.trim();
      if (to === '' || to.length > MAX_TO_LENGTH) return fail('to', `a session ref of 1 to ${MAX_TO_LENGTH} characters`);
    } else return fail('to', 'must be a session ref');
  }
  if (to === null && replyTo.value === null) return fail('to', 'required for a new message (one without reply_to)');

  if (typeof input.payload !== 'string') return fail('payload', input.payload === undefined || input.payload === null ? 'required' : 'must be UTF-8 text');
  const payload = input.payload;
  if (payload.trim() === '') return fail('payload', 'must not be empty');
  if (hasLoneSurrogate(payload)) return fail('payload', 'is not valid UTF-8 text (it contains a lone surrogate)');
  // PostgreSQL text cannot hold NUL; refusing it on every store keeps the stores alike
  if (payload.includes('\u0000')) return fail('payload', 'must not contain NUL characters');
  const payloadBytes = utf8Length(payload);
  if (payloadBytes > MAX_PAYLOAD_BYTES) return fail('payload', `is ${payloadBytes} bytes; the limit is ${MAX_PAYLOAD_BYTES} bytes of UTF-8`);

  let ttlSeconds: number | null = null;
  if (input.ttl !== undefined && input.ttl !== null) {
    if (typeof input.ttl !== 'number' || !Number.isInteger(input.ttl)) return fail('ttl', 'must be a whole number of seconds');
    if (input.ttl < MIN_TTL_SECONDS || input.ttl > MAX_TTL_SECONDS)
      return fail('ttl', `must be ${MIN_TTL_SECONDS} to ${MAX_TTL_SECONDS.toLocaleString('en-US')} seconds`);
    ttlSeconds = input.ttl;
  }

  return { ok: true, envelope: { ref: ref.value, to, payload, payloadBytes, ttlSeconds, replyTo: replyTo.value } };
}

/**
 * The content a retry is compared on (docs/messages.md: `(to, reply_to, payload)`), with
 * the ref syntaxes that name the same thing spelled alike (`#42` and `42`, a uid in any case).
 * The app layer hashes its canonical JSON.
 */
export function retryContent(e: Pick<ValidEnvelope, 'to' | 'replyTo' | 'payload'>): { to: string | null; reply_to: string | null; payload: string } {
  let to: string | null = null;
  if (e.to !== null) {
    const parsed = parseSessionRef(e.to, true);
    to = parsed.kind === 'id' ? `#${parsed.id}` : parsed.kind === 'uid' ? `uid:${parsed.uid}` : parsed.kind === 'uid-prefix' ? `uid:${parsed.prefix}` : e.to;
  }
  return { to, reply_to: e.replyTo ? replyToText(e.replyTo) : null, payload: e.payload };
}

/** The deadline `ttlSeconds` after `nowIso`. */
export function deadlineAfter(nowIso: string, ttlSeconds: number): string {
  return new Date(Date.parse(nowIso) + ttlSeconds * 1000).toISOString();
}

export const MESSAGE_STATES = ['accepted', 'delivered', 'expired', 'failed'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

/**
 * The state a reader sees: a message whose deadline passed before it was acknowledged is
 * `expired` at its deadline, even before housekeeping rewrites the row (a read changes nothing).
 */
export function effectiveMessageState(
  m: { state: MessageState; deadline: string; terminalAt: string | null },
  nowIso: string,
): { state: MessageState; terminalAt: string | null } {
  if (m.state === 'accepted' && m.deadline <= nowIso) return { state: 'expired', terminalAt: m.deadline };
  return { state: m.state, terminalAt: m.terminalAt };
}
