import { sql, type Insertable } from 'kysely';
import type { ActBasis } from '../core/basis.js';
import type { MessageState } from '../core/message-envelope.js';
import { compiledForRows, compiledOnce } from './compiled-once.js';
import type { Database } from './database.js';
import type { Executor } from './dialect/dialect.js';

/** docs/messages.md: the envelope of an agent message, as stored (the payload is null once reclaimed). */
export interface MessageRecord {
  seq: number;
  id: string;
  ref: string;
  refMinted: boolean;
  contentSha256: string;
  conversationRef: string;
  replyTo: string | null;
  sourceSessionId: number;
  sourceBasis: 'authenticated' | 'declared';
  sourceActivation: number;
  sourceConversation: string | null;
  senderActorId: number;
  causeActorId: number | null;
  causeBasis: ActBasis | null;
  credentialId: number | null;
  targetSessionId: number;
  targetConversation: string | null;
  inboxItemId: number | null;
  deadline: string;
  payload: string | null;
  payloadBytes: number;
  payloadSha256: string;
  digestKey: string | null;
  state: MessageState;
  acceptedAt: string;
  terminalAt: string | null;
  terminalReason: string | null;
  reclaimedAt: string | null;
}

export type NewMessage = Omit<MessageRecord, 'seq' | 'terminalAt' | 'terminalReason' | 'reclaimedAt' | 'state'>;

type Row = {
  seq: number;
  id: string;
  ref: string;
  ref_minted: number;
  content_sha256: string;
  conversation_ref: string;
  reply_to: string | null;
  source_session_id: number;
  source_basis: string;
  source_activation: number;
  source_conversation: string | null;
  sender_actor_id: number;
  cause_actor_id: number | null;
  cause_basis: string | null;
  credential_id: number | null;
  target_session_id: number;
  target_conversation: string | null;
  inbox_item_id: number | null;
  deadline: string;
  payload: string | null;
  payload_bytes: number;
  payload_sha256: string;
  digest_key: string | null;
  state: string;
  accepted_at: string;
  terminal_at: string | null;
  terminal_reason: string | null;
  reclaimed_at: string | null;
};

const n = (v: number | null): number | null => (v === null ? null : Number(v));

function toRecord(r: Row): MessageRecord {
  return {
    seq: Number(r.seq),
    id: r.id,
    ref: r.ref,
    refMinted: Number(r.ref_minted) === 1,
    contentSha256: r.content_sha256,
    conversationRef: r.conversation_ref,
    replyTo: r.reply_to,
    sourceSessionId: Number(r.source_session_id),
    sourceBasis: r.source_basis as 'authenticated' | 'declared',
    sourceActivation: Number(r.source_activation),
    sourceConversation: r.source_conversation,
    senderActorId: Number(r.sender_actor_id),
    causeActorId: n(r.cause_actor_id),
    causeBasis: r.cause_basis as ActBasis | null,
    credentialId: n(r.credential_id),
    targetSessionId: Number(r.target_session_id),
    targetConversation: r.target_conversation,
    inboxItemId: n(r.inbox_item_id),
    deadline: r.deadline,
    payload: r.payload,
    payloadBytes: Number(r.payload_bytes),
    payloadSha256: r.payload_sha256,
    digestKey: r.digest_key,
    state: r.state as MessageState,
    acceptedAt: r.accepted_at,
    terminalAt: r.terminal_at,
    terminalReason: r.terminal_reason,
    reclaimedAt: r.reclaimed_at,
  };
}

const insertMessageRows = compiledForRows((db, rows: readonly Insertable<Database['agent_messages']>[]) => db.insertInto('agent_messages').values(rows));

export async function insertMessage(db: Executor, m: NewMessage): Promise<void> {
  await insertMessageRows(db, [
    {
      id: m.id,
      ref: m.ref,
      ref_minted: m.refMinted ? 1 : 0,
      content_sha256: m.contentSha256,
      conversation_ref: m.conversationRef,
      reply_to: m.replyTo,
      source_session_id: m.sourceSessionId,
      source_basis: m.sourceBasis,
      source_activation: m.sourceActivation,
      source_conversation: m.sourceConversation,
      sender_actor_id: m.senderActorId,
      cause_actor_id: m.causeActorId,
      cause_basis: m.causeBasis,
      credential_id: m.credentialId,
      target_session_id: m.targetSessionId,
      target_conversation: m.targetConversation,
      inbox_item_id: m.inboxItemId,
      deadline: m.deadline,
      payload: m.payload,
      payload_bytes: m.payloadBytes,
      payload_sha256: m.payloadSha256,
      digest_key: m.digestKey,
      state: 'accepted',
      accepted_at: m.acceptedAt,
    },
  ]);
}

export async function findMessage(db: Executor, id: string): Promise<MessageRecord | null> {
  const row = await db.selectFrom('agent_messages').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toRecord(row) : null;
}

const messageRowBySenderRef = compiledOnce((db, p: { sourceSessionId: number; ref: string }) =>
  db.selectFrom('agent_messages').selectAll().where('source_session_id', '=', p.sourceSessionId).where('ref', '=', p.ref),
);

export async function findMessageBySenderRef(db: Executor, sourceSessionId: number, ref: string): Promise<MessageRecord | null> {
  const [row] = await messageRowBySenderRef(db, { sourceSessionId, ref });
  return row ? toRecord(row) : null;
}

/** The message that answers `replyTo` (a message id or an inbox item id's digits), if one committed. */
export async function findReplyTo(db: Executor, replyTo: string): Promise<string | null> {
  const row = await db.selectFrom('agent_messages').select('id').where('reply_to', '=', replyTo).executeTakeFirst();
  return row?.id ?? null;
}

export async function findMessagesByInboxItems(db: Executor, itemIds: readonly number[]): Promise<MessageRecord[]> {
  if (itemIds.length === 0) return [];
  const rows = await db
    .selectFrom('agent_messages')
    .selectAll()
    .where('inbox_item_id', 'in', [...new Set(itemIds)])
    .execute();
  return rows.map((r) => toRecord(r));
}

/** Agent messages sent from or to any of `sessionIds`, oldest first (the PROV export's messages). */
export async function messagesTouchingSessions(db: Executor, sessionIds: readonly number[], limit: number): Promise<MessageRecord[]> {
  if (sessionIds.length === 0) return [];
  const ids = [...new Set(sessionIds)];
  const rows = await db
    .selectFrom('agent_messages')
    .selectAll()
    .where((eb) => eb.or([eb('source_session_id', 'in', ids), eb('target_session_id', 'in', ids)]))
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => toRecord(r));
}

/** The newest `limit` agent messages one session sent or received, newest first (a session page's messages panel). */
export async function latestMessagesOfSession(db: Executor, sessionId: number, limit: number): Promise<MessageRecord[]> {
  const rows = await db
    .selectFrom('agent_messages')
    .selectAll()
    .where((eb) => eb.or([eb('source_session_id', '=', sessionId), eb('target_session_id', '=', sessionId)]))
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => toRecord(r));
}

/** Accepted messages whose deadline has come (all, or one target's), oldest deadline first. */
export async function dueMessages(db: Executor, now: string, options: { targetSessionId?: number; limit: number }): Promise<MessageRecord[]> {
  // the literal lets both planners use the partial in-flight indexes (a bound parameter would not)
  let q = db.selectFrom('agent_messages').selectAll().where('state', '=', sql.lit('accepted')).where('deadline', '<=', now);
  if (options.targetSessionId !== undefined) q = q.where('target_session_id', '=', options.targetSessionId);
  const rows = await q.orderBy('deadline').limit(options.limit).execute();
  return rows.map((r) => toRecord(r));
}

export async function acceptedMessagesTo(db: Executor, targetSessionId: number): Promise<MessageRecord[]> {
  const rows = await db
    .selectFrom('agent_messages')
    .selectAll()
    .where('target_session_id', '=', targetSessionId)
    .where('state', '=', sql.lit('accepted'))
    .orderBy('seq')
    .execute();
  return rows.map((r) => toRecord(r));
}

/**
 * Compare-and-set from `accepted`, for many at once in one statement: of two concurrent
 * settlements exactly one lands. The ids that were still `accepted` and now are not.
 */
export async function settleMessages(
  db: Executor,
  ids: readonly string[],
  state: Exclude<MessageState, 'accepted'>,
  terminalAt: string,
  reason: string,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .updateTable('agent_messages')
    .set({ state, terminal_at: terminalAt, terminal_reason: reason })
    .where('id', 'in', [...ids])
    .where('state', '=', 'accepted')
    .returning('id')
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Terminal messages still holding a payload, terminal before `before` (when given), oldest first. */
export async function reclaimableMessages(db: Executor, options: { before?: string; limit: number }): Promise<MessageRecord[]> {
  let q = db.selectFrom('agent_messages').selectAll().where('reclaimed_at', 'is', null).where('terminal_at', 'is not', null);
  if (options.before !== undefined) q = q.where('terminal_at', '<=', options.before);
  const rows = await q.orderBy('terminal_at').orderBy('seq').limit(options.limit).execute();
  return rows.map((r) => toRecord(r));
}

/** How many terminal messages could be reclaimed now (counted up to `max`). */
export async function countReclaimable(db: Executor, max: number): Promise<number> {
  const row = await db
    .selectFrom((eb) => eb.selectFrom('agent_messages').select('seq').where('reclaimed_at', 'is', null).where('terminal_at', 'is not', null).limit(max).as('r'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Drops a terminal message's payload and its digest key; the envelope stays (docs/messages.md). */
export async function reclaimPayload(db: Executor, id: string, now: string): Promise<boolean> {
  const r = await db
    .updateTable('agent_messages')
    .set({ payload: null, digest_key: null, reclaimed_at: now })
    .where('id', '=', id)
    .where('reclaimed_at', 'is', null)
    .where('terminal_at', 'is not', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

const heldMessagesAndSettingRow = compiledOnce((db, p: { key: string }) =>
  db.selectNoFrom((eb) => [
    eb.selectFrom('counters').select('value').where('name', '=', 'agent_messages_held').as('held'),
    eb.selectFrom('settings').select('value').where('key', '=', p.key).as('setting'),
  ]),
);

/**
 * Messages holding a payload (a counter row, so the capacity check reads one row) and a
 * setting's text, in one round trip.
 */
export async function heldMessagesAndSetting(db: Executor, key: string): Promise<{ held: number; setting: string | null }> {
  const [row] = await heldMessagesAndSettingRow(db, { key });
  if (!row) throw new Error('heldMessagesAndSetting: the select returned no row');
  return { held: Number(row.held ?? 0), setting: row.setting ?? null };
}

// nobody reads its answer: on PostgreSQL it goes out with the COMMIT after it (postgres-pipeline.ts)
const addToHeldMessages = compiledOnce(
  (db, p: { delta: number }) =>
    db
      .updateTable('counters')
      .set({ value: sql`value + ${p.delta}` })
      .where('name', '=', 'agent_messages_held'),
  { resultUnused: true },
);

export async function adjustHeldMessages(db: Executor, delta: number): Promise<void> {
  if (delta === 0) return;
  await addToHeldMessages(db, { delta });
}

// --- message_history ------------------------------------------------------------------------

export interface HistoryRecord {
  seq: number;
  messageId: string;
  schemaVersion: number;
  ref: string;
  conversationRef: string;
  replyTo: string | null;
  sourceSessionId: number;
  sourceBasis: string;
  sourceActivation: number;
  sourceConversation: string | null;
  targetSessionId: number;
  targetConversation: string | null;
  deadline: string;
  payloadBytes: number;
  payloadSha256: string;
  state: MessageState;
  acceptedAt: string;
  terminalAt: string;
  terminalReason: string;
  recordedAt: string;
}

type HistoryRow = {
  seq: number;
  message_id: string;
  schema_version: number;
  ref: string;
  conversation_ref: string;
  reply_to: string | null;
  source_session_id: number;
  source_basis: string;
  source_activation: number;
  source_conversation: string | null;
  target_session_id: number;
  target_conversation: string | null;
  deadline: string;
  payload_bytes: number;
  payload_sha256: string;
  state: string;
  accepted_at: string;
  terminal_at: string;
  terminal_reason: string;
  recorded_at: string;
};

function toHistory(r: HistoryRow): HistoryRecord {
  return {
    seq: Number(r.seq),
    messageId: r.message_id,
    schemaVersion: Number(r.schema_version),
    ref: r.ref,
    conversationRef: r.conversation_ref,
    replyTo: r.reply_to,
    sourceSessionId: Number(r.source_session_id),
    sourceBasis: r.source_basis,
    sourceActivation: Number(r.source_activation),
    sourceConversation: r.source_conversation,
    targetSessionId: Number(r.target_session_id),
    targetConversation: r.target_conversation,
    deadline: r.deadline,
    payloadBytes: Number(r.payload_bytes),
    payloadSha256: r.payload_sha256,
    state: r.state as MessageState,
    acceptedAt: r.accepted_at,
    terminalAt: r.terminal_at,
    terminalReason: r.terminal_reason,
    recordedAt: r.recorded_at,
  };
}

const historyValues = (h: Omit<HistoryRecord, 'seq'>) => ({
  message_id: h.messageId,
  schema_version: h.schemaVersion,
  ref: h.ref,
  conversation_ref: h.conversationRef,
  reply_to: h.replyTo,
  source_session_id: h.sourceSessionId,
  source_basis: h.sourceBasis,
  source_activation: h.sourceActivation,
  source_conversation: h.sourceConversation,
  target_session_id: h.targetSessionId,
  target_conversation: h.targetConversation,
  deadline: h.deadline,
  payload_bytes: h.payloadBytes,
  payload_sha256: h.payloadSha256,
  state: h.state,
  accepted_at: h.acceptedAt,
  terminal_at: h.terminalAt,
  terminal_reason: h.terminalReason,
  recorded_at: h.recordedAt,
});

/** History rows in one statement, seqs assigned in the given order; each message's seq. */
export async function insertHistories(db: Executor, hs: readonly Omit<HistoryRecord, 'seq'>[]): Promise<Map<string, number>> {
  if (hs.length === 0) return new Map();
  const rows = await db.insertInto('message_history').values(hs.map(historyValues)).returning(['seq', 'message_id']).execute();
  return new Map(rows.map((r) => [r.message_id, Number(r.seq)]));
}

export async function historyPage(db: Executor, afterSeq: number, limit: number): Promise<HistoryRecord[]> {
  const rows = await db.selectFrom('message_history').selectAll().where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
  return rows.map((r) => toHistory(r));
}

export async function countHistory(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('message_history')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
