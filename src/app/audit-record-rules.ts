import type { ScannedRow, ScannedTable } from '../store/record-scan-repo.js';
import { canonicalJson, fastKeyedDigest } from './audit.js';

/**
 * What each audit entry commits to, field by field (docs/audit-log.md "Checking records against
 * the log"): for every evidence table, which entry kind records a row, the key both name it by,
 * and the values the entry holds — verbatim, or as the keyed digest of the record's words,
 * recomputed here from the row and its own key. `warrant audit verify --records` compares the
 * two value lists; any difference is a rewritten record.
 */

type Entry = Record<string, unknown>;
export type FieldValues = readonly unknown[];

export interface RecordRule {
  table: Exclude<ScannedTable, 'session_uncles'>;
  /** the entry kind that records a row of `table` */
  kind: string;
  /** names of the compared values, in order (for the report) */
  fields: readonly string[];
  /** the record's key as the entry names it; null when the entry predates the key (not covered) */
  entryKey(e: Entry): string | null;
  /** false when the entry carries no digest for words the row holds (older entries: not covered) */
  entryComplete?(e: Entry): boolean;
  fromEntry(e: Entry): FieldValues;
  /** the row's key, or null when the row is not evidence the log records (runtime state) */
  rowKey(row: ScannedRow): string | null;
  fromRow(row: ScannedRow): FieldValues;
  /**
   * `fromRow` with the row's JSON text digested as stored, skipping its canonical re-encoding:
   * equal to the entry's values exactly when the text is the canonical one the app writes.
   * Tried first; on any difference the checker falls back to `fromRow`, so only speed depends on it.
   */
  fromRowAsStored?(row: ScannedRow): FieldValues;
  /** sessions whose deletion takes the record with it */
  sessionsOf?(e: Entry): number[];
  /** when the row was written (a row older than the log's first entry predates the log) */
  rowTime(row: ScannedRow): string;
  /** a row no entry records: a finding (`unlogged`), or not covered (mints recorded elsewhere) */
  unlogged: 'finding' | 'not-covered';
  /** how a report names the record */
  label(key: string): string;
}

const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const s = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const has = (e: Entry, key: string) => typeof e[key] === 'string';

/** The digest of a row's words under its own key; null when the row has lost its key. */
function digestOf(key: unknown, words: string): string | null {
  return typeof key === 'string' && key.length > 0 ? fastKeyedDigest(key, words) : null;
}

/** Canonical text of a JSON column, so key order and spacing never count as a change. */
function canonicalText(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return `unparseable:${text}`;
  }
}

const ATTRIBUTION = ['actor_id', 'actor_basis', 'caused_by_actor_id', 'cause_basis', 'credential_id'] as const;

function eventValues(r: ScannedRow, details: string | null): FieldValues {
  const digest = details === null ? null : digestOf(r.digest_key, details);
  return [r.type, digest, r.actor_id, r.actor_basis, r.caused_by_actor_id, r.cause_basis, r.credential_id, r.created_at];
}

const sessionEvents: RecordRule = {
  table: 'session_events',
  kind: 'session_event',
  fields: ['type', 'details_digest', ...ATTRIBUTION, 'at'],
  entryKey: (e) => (e.session_id == null || e.event_seq == null ? null : `${e.session_id}/${e.event_seq}`),
  entryComplete: (e) => has(e, 'details_digest'),
  fromEntry: (e) => [e.type, e.details_digest, n(e.actor_id), s(e.actor_basis), n(e.caused_by_actor_id), s(e.cause_basis), n(e.credential_id), e.at],
  // runtime state (no digest key) is not evidence and has no entry
  rowKey: (r) => (r.digest_key === null ? null : `${r.session_id}/${r.seq}`),
  fromRow: (r) => eventValues(r, canonicalText(r.details)),
  fromRowAsStored: (r) => eventValues(r, typeof r.details === 'string' ? r.details : null),
  sessionsOf: (e) => [Number(e.session_id)],
  rowTime: (r) => String(r.created_at),
  unlogged: 'finding',
  label: (key) => {
    const [session, seq] = key.split('/');
    return `session ${session} event ${seq}`;
  },
};

const sessionDeletions: RecordRule = {
  table: 'session_deletions',
  kind: 'session_deletion',
  fields: [
    'session_id',
    'session_uid',
    'last_title_digest',
    'owner_user_id',
    'lineage_parent_id',
    ...ATTRIBUTION,
    'via',
    'affected',
    'event_count',
    'human_message_count',
    'at',
  ],
  entryKey: (e) => (e.deletion_id == null ? null : String(e.deletion_id)),
  entryComplete: (e) => has(e, 'last_title_digest'),
  fromEntry: (e) => [
    n(e.session_id),
    e.session_uid,
    e.last_title_digest,
    n(e.owner_user_id),
    n(e.lineage_parent_id),
    n(e.actor_id),
    s(e.actor_basis),
    n(e.caused_by_actor_id),
    s(e.cause_basis),
    n(e.credential_id),
    e.via,
    e.affected === undefined ? null : canonicalJson(e.affected),
    n(e.event_count),
    n(e.human_message_count),
    e.at,
  ],
  rowKey: (r) => String(r.id),
  fromRow: (r) => [
    r.session_id,
    r.session_uid,
    digestOf(r.digest_key, r.last_title === null ? '' : String(r.last_title)),
    r.owner_user_id,
    r.lineage_parent_id,
    r.actor_id,
    r.actor_basis,
    r.caused_by_actor_id,
    r.cause_basis,
    r.credential_id,
    r.via,
    canonicalText(r.affected),
    r.event_count,
    r.human_message_count,
    r.deleted_at,
  ],
  rowTime: (r) => String(r.deleted_at),
  unlogged: 'finding',
  label: (key) => `deletion record ${key}`,
};

const humanMessages: RecordRule = {
  table: 'human_messages',
  kind: 'human_message',
  fields: ['session_id', 'author_actor_id', 'author_key', 'channel', 'entry_point', 'inbox_item_id', 'content_hmac', 'witness_isolation', 'at'],
  entryKey: (e) => (e.human_message_id == null ? null : String(e.human_message_id)),
  entryComplete: (e) => has(e, 'content_hmac'),
  fromEntry: (e) => [
    n(e.session_id),
    n(e.author_actor_id),
    e.author_key,
    e.channel,
    e.entry_point,
    n(e.inbox_item_id),
    e.content_hmac,
    s(e.witness_isolation),
    e.at,
  ],
  rowKey: (r) => String(r.id),
  fromRow: (r) => [
    r.session_id,
    r.author_actor_id,
    r.author_key,
    r.channel,
    r.entry_point,
    r.inbox_item_id,
    digestOf(r.digest_key, String(r.content)),
    r.witness_isolation,
    r.created_at,
  ],
  sessionsOf: (e) => [Number(e.session_id)],
  rowTime: (r) => String(r.created_at),
  unlogged: 'finding',
  label: (key) => `human message ${key}`,
};

const withdrawals: RecordRule = {
  table: 'human_message_withdrawals',
  kind: 'human_message_withdrawn',
  fields: ['session_id', 'actor_id', 'actor_basis', 'at'],
  // one withdrawal per message: named by the message it withdraws
  entryKey: (e) => (e.human_message_id == null ? null : String(e.human_message_id)),
  fromEntry: (e) => [n(e.session_id), n(e.actor_id), s(e.actor_basis), e.at],
  rowKey: (r) => String(r.human_message_id),
  fromRow: (r) => [r.session_id, r.actor_id, r.actor_basis, r.created_at],
  sessionsOf: (e) => [Number(e.session_id)],
  rowTime: (r) => String(r.created_at),
  unlogged: 'finding',
  label: (key) => `withdrawal of human message ${key}`,
};

const messageHistory: RecordRule = {
  table: 'message_history',
  kind: 'message_history',
  fields: [
    'message_id',
    'ref',
    'conversation_ref',
    'reply_to',
    'source.session_id',
    'source.basis',
    'source.activation',
    'source.provider_conversation',
    'target.session_id',
    'target.provider_conversation',
    'deadline',
    'state',
    'accepted_at',
    'terminal_at',
    'terminal_reason',
    'payload_bytes',
    'at',
  ],
  entryKey: (e) => (e.history_seq == null ? null : String(e.history_seq)),
  fromEntry: (e) => {
    const src = (e.source ?? {}) as Entry;
    const tgt = (e.target ?? {}) as Entry;
    return [
      e.message_id,
      e.ref,
      e.conversation_ref,
      s(e.reply_to),
      n(src.session_id),
      s(src.basis),
      n(src.activation),
      s(src.provider_conversation),
      n(tgt.session_id),
      s(tgt.provider_conversation),
      e.deadline,
      e.state,
      e.accepted_at,
      e.terminal_at,
      e.terminal_reason,
      n(e.payload_bytes),
      e.at,
    ];
  },
  rowKey: (r) => String(r.seq),
  fromRow: (r) => [
    r.message_id,
    r.ref,
    r.conversation_ref,
    r.reply_to,
    r.source_session_id,
    r.source_basis,
    r.source_activation,
    r.source_conversation,
    r.target_session_id,
    r.target_conversation,
    r.deadline,
    r.state,
    r.accepted_at,
    r.terminal_at,
    r.terminal_reason,
    r.payload_bytes,
    r.recorded_at,
  ],
  rowTime: (r) => String(r.recorded_at),
  unlogged: 'finding',
  label: (key) => `message history row ${key}`,
};

const coverageLog: RecordRule = {
  table: 'coverage_log',
  kind: 'coverage_changed',
  fields: ['instrumented', 'reason'],
  // one row per channel per write: named by channel and time
  entryKey: (e) => `${e.channel}@${e.at}`,
  fromEntry: (e) => [e.instrumented === true ? 1 : 0, e.reason],
  rowKey: (r) => `${r.channel}@${r.created_at}`,
  fromRow: (r) => [r.instrumented, r.reason],
  rowTime: (r) => String(r.created_at),
  unlogged: 'finding',
  label: (key) => `coverage row ${key}`,
};

const tokens: RecordRule = {
  table: 'tokens',
  kind: 'token_issued',
  fields: ['kind', 'user_id', 'client_name', 'issued_by_actor_id', 'at'],
  entryKey: (e) => (e.credential_id == null ? null : String(e.credential_id)),
  fromEntry: (e) => [e.token_kind, n(e.user_id), s(e.client_name), n(e.issued_by_actor_id), e.at],
  rowKey: (r) => String(r.id),
  fromRow: (r) => [r.kind, r.user_id, r.client_name, r.issued_by_actor_id, r.created_at],
  rowTime: (r) => String(r.created_at),
  // session, witness and web credentials are minted inside the act they serve, recorded by its events
  unlogged: 'not-covered',
  label: (key) => `credential ${key}`,
};

/** Every table a record rule covers, in the order they are checked. */
export const RECORD_RULES: readonly RecordRule[] = [sessionEvents, sessionDeletions, humanMessages, withdrawals, messageHistory, coverageLog, tokens];

/** The rule for an entry kind. */
export const RULE_BY_KIND: ReadonlyMap<string, RecordRule> = new Map(RECORD_RULES.map((r) => [r.kind, r]));

/** Uncle-edge events: the log commits to an edge through its junior's timeline event (docs/audit-log.md). */
export const UNCLE_EVENT_TYPES = new Set(['uncle_linked', 'uncle_inverted', 'uncle_removed']);
export const UNCLE_FIELDS = ['source', 'basis', 'recorded_by_actor_id', 'created_at'] as const;

export function uncleValues(edge: Entry): FieldValues {
  return [edge.source, edge.basis, n(edge.recorded_by_actor_id), edge.created_at];
}

export const uncleKey = (junior: unknown, uncle: unknown) => `${junior}>${uncle}`;
