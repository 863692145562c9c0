import type { Executor } from './dialect/dialect.js';
import type { CaptureChannel, ChannelChange } from '../core/coverage.js';
import type { WitnessIsolation } from '../core/terminal-witness.js';
import { compiledOnce, inIdList } from './compiled-once.js';

export interface HumanMessageRecord {
  id: number;
  sessionId: number;
  inboxItemId: number | null;
  authorActorId: number;
  authorKey: string;
  channel: CaptureChannel;
  entryPoint: string;
  content: string;
  slackPermalink: string | null;
  createdAt: string;
  withdrawnAt: string | null;
  /** a witnessed terminal prompt: whether the agent ran as another OS user than the witness */
  witnessIsolation: WitnessIsolation | null;
}

export async function insertHumanMessage(
  db: Executor,
  m: Omit<HumanMessageRecord, 'id' | 'withdrawnAt' | 'witnessIsolation'> & { digestKey: string; witnessIsolation?: WitnessIsolation | null },
): Promise<number> {
  const row = await db
    .insertInto('human_messages')
    .values({
      session_id: m.sessionId,
      inbox_item_id: m.inboxItemId,
      author_actor_id: m.authorActorId,
      author_key: m.authorKey,
      channel: m.channel,
      entry_point: m.entryPoint,
      content: m.content,
      slack_permalink: m.slackPermalink,
      digest_key: m.digestKey,
      created_at: m.createdAt,
      witness_isolation: m.witnessIsolation ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function insertWithdrawal(
  db: Executor,
  w: { humanMessageId: number; sessionId: number; actorId: number | null; actorBasis: string | null; now: string },
): Promise<void> {
  await db
    .insertInto('human_message_withdrawals')
    .values({ human_message_id: w.humanMessageId, session_id: w.sessionId, actor_id: w.actorId, actor_basis: w.actorBasis, created_at: w.now })
    .onConflict((oc) => oc.column('human_message_id').doNothing())
    .execute();
}

type Row = {
  id: number;
  session_id: number;
  inbox_item_id: number | null;
  author_actor_id: number;
  author_key: string;
  channel: string;
  entry_point: string;
  content: string;
  slack_permalink: string | null;
  created_at: string;
  withdrawn_at: string | null;
  witness_isolation: string | null;
};

function toRecord(r: Row): HumanMessageRecord {
  return {
    id: Number(r.id),
    sessionId: Number(r.session_id),
    inboxItemId: r.inbox_item_id === null ? null : Number(r.inbox_item_id),
    authorActorId: Number(r.author_actor_id),
    authorKey: r.author_key,
    channel: r.channel as CaptureChannel,
    entryPoint: r.entry_point,
    content: r.content,
    slackPermalink: r.slack_permalink,
    createdAt: r.created_at,
    withdrawnAt: r.withdrawn_at,
    witnessIsolation: (r.witness_isolation as WitnessIsolation | null) ?? null,
  };
}

const COLUMNS = [
  'm.id',
  'm.session_id',
  'm.inbox_item_id',
  'm.author_actor_id',
  'm.author_key',
  'm.channel',
  'm.entry_point',
  'm.content',
  'm.slack_permalink',
  'm.created_at',
  'm.witness_isolation',
] as const;

/** A LIMIT both dialects read as none (SQLite's -1 and PostgreSQL's NULL differ). */
const UNLIMITED = 2 ** 31 - 1;

const humanMessagesPage = compiledOnce((db, p: { sessionIds: readonly number[]; beforeId: number; limit: number }, d) =>
  db
    .selectFrom('human_messages as m')
    .leftJoin('human_message_withdrawals as w', 'w.human_message_id', 'm.id')
    .select([...COLUMNS, 'w.created_at as withdrawn_at'])
    .where(inIdList(d, 'm.session_id', p.sessionIds))
    .where('m.id', '<', p.beforeId)
    .orderBy('m.id', 'desc')
    .limit(p.limit),
);

/** The messages of a set of sessions, newest first, keyset-paginated by id. */
export async function humanMessagesOf(
  db: Executor,
  sessionIds: readonly number[],
  page: { beforeId?: number; limit?: number; sessionFilter?: number[] } = {},
): Promise<HumanMessageRecord[]> {
  if (sessionIds.length === 0) return [];
  // no page bound is the widest one, so one statement serves every page
  const rows = await humanMessagesPage(db, {
    sessionIds: [...new Set(page.sessionFilter ?? sessionIds)],
    beforeId: page.beforeId ?? Number.MAX_SAFE_INTEGER,
    limit: page.limit ?? UNLIMITED,
  });
  return rows.map((r) => toRecord(r));
}

const humanMessageCountRows = compiledOnce((db, p: { sessionIds: readonly number[] }, d) =>
  db
    .selectFrom('human_messages as m')
    .leftJoin('human_message_withdrawals as w', 'w.human_message_id', 'm.id')
    .select((eb) => ['m.session_id', eb.fn.countAll<number>().as('all'), eb.fn.count<number>('w.id').as('withdrawn')])
    .where(inIdList(d, 'm.session_id', p.sessionIds))
    .groupBy('m.session_id'),
);

/** Counts per session of the set: all records, and those not withdrawn. */
export async function humanMessageCounts(db: Executor, sessionIds: readonly number[]): Promise<Map<number, { all: number; live: number }>> {
  const out = new Map<number, { all: number; live: number }>();
  if (sessionIds.length === 0) return out;
  const rows = await humanMessageCountRows(db, { sessionIds: [...new Set(sessionIds)] });
  for (const r of rows) out.set(Number(r.session_id), { all: Number(r.all), live: Number(r.all) - Number(r.withdrawn) });
  return out;
}

/** Each message's digest key (hex), for keyed digests of its words (docs/attribution.md). */
export async function humanMessageDigestKeys(db: Executor, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('human_messages')
    .select(['id', 'digest_key'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [Number(r.id), r.digest_key]));
}

export async function findHumanMessageById(db: Executor, id: number): Promise<HumanMessageRecord | null> {
  const row = await db
    .selectFrom('human_messages as m')
    .leftJoin('human_message_withdrawals as w', 'w.human_message_id', 'm.id')
    .select([...COLUMNS, 'w.created_at as withdrawn_at'])
    .where('m.id', '=', id)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function findHumanMessageByInboxItem(db: Executor, inboxItemId: number): Promise<HumanMessageRecord | null> {
  const row = await db
    .selectFrom('human_messages as m')
    .leftJoin('human_message_withdrawals as w', 'w.human_message_id', 'm.id')
    .select([...COLUMNS, 'w.created_at as withdrawn_at'])
    .where('m.inbox_item_id', '=', inboxItemId)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}

const coverageRows = compiledOnce((db) => db.selectFrom('coverage_log').select(['channel', 'instrumented', 'created_at']).orderBy('id'));

export async function coverageLog(db: Executor): Promise<ChannelChange[]> {
  const rows = await coverageRows(db, {});
  return rows.map((r) => ({ channel: r.channel as CaptureChannel, instrumented: Number(r.instrumented) === 1, at: r.created_at }));
}

/** Each channel's newest coverage row: whether it was instrumented, and the reason it gave. */
export async function lastCoverageState(db: Executor): Promise<Map<CaptureChannel, { instrumented: boolean; reason: string }>> {
  const rows = await db.selectFrom('coverage_log').select(['channel', 'instrumented', 'reason']).orderBy('id').execute();
  const out = new Map<CaptureChannel, { instrumented: boolean; reason: string }>();
  for (const r of rows) out.set(r.channel as CaptureChannel, { instrumented: Number(r.instrumented) === 1, reason: r.reason });
  return out;
}

export async function appendCoverage(db: Executor, e: { channel: CaptureChannel; instrumented: boolean; reason: string; now: string }): Promise<void> {
  await db
    .insertInto('coverage_log')
    .values({ channel: e.channel, instrumented: e.instrumented ? 1 : 0, reason: e.reason, created_at: e.now })
    .execute();
}

/** Ids of messages that were not withdrawn (the gate's evidence), newest first. */
export async function liveHumanMessageIds(db: Executor, sessionIds: readonly number[], limit: number): Promise<number[]> {
  if (sessionIds.length === 0) return [];
  const rows = await db
    .selectFrom('human_messages as m')
    .leftJoin('human_message_withdrawals as w', 'w.human_message_id', 'm.id')
    .select('m.id')
    .where('m.session_id', 'in', [...new Set(sessionIds)])
    .where('w.id', 'is', null)
    .orderBy('m.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}

/** Of these messages, the witnessed terminal prompts and their isolation (docs/design/terminal-channel.md). */
export async function witnessIsolationsOf(db: Executor, ids: readonly number[]): Promise<Map<number, WitnessIsolation>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('human_messages')
    .select(['id', 'witness_isolation'])
    .where('id', 'in', [...ids])
    .where('witness_isolation', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [Number(r.id), r.witness_isolation as WitnessIsolation]));
}
