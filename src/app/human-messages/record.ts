import { coverageGaps, type CoverageGap } from '../../core/coverage.js';
import type { Hierarchy } from '../../core/hierarchy-types.js';
import { SUMMARY_PER_SCOPE, type Scope } from '../../core/human-record.js';
import type { Genesis } from '../../core/genesis.js';
import type { WitnessIsolation } from '../../core/terminal-witness.js';
import type { Executor } from '../../store/dialect/dialect.js';
import { coverageLog, findHumanMessageById, humanMessageCounts, humanMessagesOf, type HumanMessageRecord } from '../../store/human-messages-repo.js';
import type { findUsersByIds } from '../../store/users-repo.js';
import { usersByIds, type UsersByIds } from '../user-reads.js';
import type { AppContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { loadActors } from '../../store/actors-repo.js';
import { terminalRunsOf } from './coverage-state.js';
import { deletionsNaming } from '../../store/deletions-repo.js';
import { sessionCreatedAt } from '../../store/sessions-repo.js';

/** One human message as every surface renders it (docs/human-messages.md). */
export interface HumanMessageEntry {
  id: number;
  sessionId: number;
  scope: Scope;
  author: { key: string | null; capturedKey: string; displayName: string | null };
  channel: string;
  entryPoint: string;
  content: string;
  slackPermalink: string | null;
  inboxItemId: number | null;
  createdAt: string;
  withdrawnAt: string | null;
  /** a witnessed terminal prompt: whether the agent ran as another OS user than the witness */
  witnessIsolation: WitnessIsolation | null;
}

export interface PersonNote {
  key: string | null;
  displayName: string;
  notes: string;
}

/**
 * The human-message record of a session's hierarchy: gathered over the walk's node set
 * (docs/concepts.md, docs/human-messages.md), with both counts of the whole record, the capture gaps judged over the
 * hierarchy's lifetime, and a page of entries newest first.
 */
export interface HumanRecord {
  sessionId: number;
  /** the walk was cut: counts are a floor and not every session was searched */
  truncated: boolean;
  counts: { here: number; elsewhere: number };
  /** not withdrawn: what the gate may use as evidence */
  liveCounts: { here: number; elsewhere: number };
  gaps: CoverageGap[];
  entries: HumanMessageEntry[];
  nextCursor: string | null;
  people: PersonNote[];
}

const RECORD_PAGE = 25;

type Authors = { actors: Awaited<ReturnType<typeof loadActors>>; users: Awaited<ReturnType<typeof findUsersByIds>> };

/** The authors of some messages: their permanent actor rows and their current roster rows. */
async function authorsOf(db: Executor, ctx: AppContext, rows: readonly HumanMessageRecord[], usersOf: UsersByIds): Promise<Authors> {
  const actors = await loadActors(
    db,
    ctx.actors,
    rows.map((r) => r.authorActorId),
  );
  const userIds = [...actors.values()].filter((a) => a.kind === 'human').map((a) => Number(a.ref));
  const users = userIds.length > 0 ? await usersOf(userIds) : new Map();
  return { actors, users };
}

function entriesOf(sessionId: number, rows: readonly HumanMessageRecord[], { actors, users }: Authors): HumanMessageEntry[] {
  return rows.map((r) => {
    const actor = actors.get(r.authorActorId);
    const user = actor && actor.kind === 'human' ? users.get(Number(actor.ref)) : undefined;
    return {
      id: r.id,
      sessionId: r.sessionId,
      scope: r.sessionId === sessionId ? 'here' : 'elsewhere',
      author: { key: user?.key ?? null, capturedKey: r.authorKey, displayName: user?.displayName ?? null },
      channel: r.channel,
      entryPoint: r.entryPoint,
      content: r.content,
      slackPermalink: r.slackPermalink,
      inboxItemId: r.inboxItemId,
      createdAt: r.createdAt,
      withdrawnAt: r.withdrawnAt,
      witnessIsolation: r.witnessIsolation,
    };
  });
}

/** One human message as the act that recorded it answers it (scope `here`: its own session). */
export async function humanMessageEntry(ctx: AppContext, id: number): Promise<HumanMessageEntry> {
  const db = ctx.store.kysely;
  const row = await findHumanMessageById(db, id);
  if (!row) throw new Error(`human message ${id} vanished after it was recorded`);
  return entriesOf(row.sessionId, [row], await authorsOf(db, ctx, [row], usersByIds(db)))[0]!;
}

/** People: each author present in the shown entries, once, only when a note exists (docs/human-messages.md). */
function peopleOf({ users }: Authors): PersonNote[] {
  return [...users.values()]
    .filter((u) => u.notes && u.notes.trim() !== '')
    .sort((a, b) => a.key.localeCompare(b.key))
    .map((u) => ({ key: u.key, displayName: u.displayName, notes: u.notes! }));
}

/**
 * docs/human-messages.md: a deleted session that held human messages and
 * whose deletion record lists one of this hierarchy's sessions (a child whose parent it was,
 * an uncle edge) or names one as its parent.
 */
async function deletedSessionGaps(db: Executor, nodeIds: ReadonlySet<number>): Promise<CoverageGap[]> {
  if (nodeIds.size === 0) return [];
  const byDeleted = new Map<number, { named: Set<number>; count: number }>();
  for (const r of await deletionsNaming(db, [...nodeIds])) {
    const entry = byDeleted.get(r.sessionId) ?? { named: new Set<number>(), count: r.humanMessageCount };
    entry.named.add(r.named);
    byDeleted.set(r.sessionId, entry);
  }
  return [...byDeleted].map(([deleted, e]) => ({
    channel: 'deleted' as const,
    kind: 'deleted-session' as const,
    sessionIds: [...e.named].sort((a, b) => a - b),
    deletedSessionId: deleted,
    humanMessages: e.count,
  }));
}

/**
 * What the request already read, so the record need not read it again: `createdAtOf`
 * answers a node's `created_at` from the walk's rows (immutable, so the same value a fresh
 * read would give); `users` is the request's memo of roster reads.
 */
interface RecordReads {
  createdAtOf?(id: number): string | undefined;
  users?: UsersByIds;
}

/** The capture gaps of a hierarchy: channels over its lifetime, unknown origins, unwitnessed agent terminals, deleted sessions. */
async function hierarchyGaps(db: Executor, now: string, hierarchy: Hierarchy, walked?: RecordReads): Promise<CoverageGap[]> {
  const ids = hierarchy.nodes.map((n) => n.id);
  // ids increase in creation order: the hierarchy's lifetime starts with its lowest id
  const lowest = ids.length === 0 ? undefined : Math.min(...ids);
  const known = lowest === undefined ? undefined : walked?.createdAtOf?.(lowest);
  const oldestAt = lowest === undefined ? null : known !== undefined ? known : await sessionCreatedAt(db, lowest);
  const oldest = oldestAt === null ? undefined : { created_at: oldestAt };
  const terminals = await terminalRunsOf(db, ids, now);
  const sessions = oldest
    ? hierarchy.nodes.map((n) => ({ id: n.id, genesis: n.genesis as Genesis, createdAt: oldest.created_at, terminalRuns: terminals.get(n.id) ?? [] }))
    : [];
  const log = await coverageLog(db);
  return [...coverageGaps(sessions, log), ...(await deletedSessionGaps(db, new Set(ids)))];
}

const nodeIdsOf = (hierarchy: Hierarchy): number[] => hierarchy.nodes.map((n) => n.id);

type RecordCounts = Map<number, { all: number; live: number }>;

/**
 * The sessions of `ids` that hold any record. The counts are read first so that a page reads
 * only these (in most hierarchies a few of the nodes) and nothing when there are none: an index
 * probe per node saved on every read.
 */
function holdingRecords(ids: readonly number[], counts: RecordCounts): number[] {
  return ids.filter((id) => (counts.get(id)?.all ?? 0) > 0);
}

/** What a record is counted from, read once per request: each node's counts, and the gaps. */
interface RecordBasis {
  counts: RecordCounts;
  gaps: CoverageGap[];
}

async function recordBasisOf(ctx: AppContext, hierarchy: Hierarchy, walked?: RecordReads): Promise<RecordBasis> {
  const db = ctx.store.kysely;
  const counts = await humanMessageCounts(db, nodeIdsOf(hierarchy));
  return { counts, gaps: await hierarchyGaps(db, ctx.clock.now().toISOString(), hierarchy, walked) };
}

/** The record over a hierarchy (the walk already ran): one page of entries from `cursor`. */
export async function humanRecordOf(
  ctx: AppContext,
  hierarchy: Hierarchy,
  page: { cursor?: string | null; limit?: number } = {},
  walked?: RecordReads,
): Promise<HumanRecord> {
  return recordPage(ctx, hierarchy, await recordBasisOf(ctx, hierarchy, walked), page, walked);
}

/**
 * The newest page of the record and its summary (`GET /sessions/:ref` as markdown, `get_session`):
 * the counts and the gaps are read once for both.
 */
export async function humanRecordAndSummaryOf(
  ctx: AppContext,
  hierarchy: Hierarchy,
  walked?: RecordReads,
): Promise<{ record: HumanRecord; summary: HumanSummary }> {
  const basis = await recordBasisOf(ctx, hierarchy, walked);
  return { record: await recordPage(ctx, hierarchy, basis, {}, walked), summary: await summaryOf(ctx, hierarchy, basis, walked) };
}

/** The record's totals, here and elsewhere, from the per-session counts. */
function totalsByScope(sessionId: number, counts: RecordCounts): Pick<HumanRecord, 'counts' | 'liveCounts'> {
  const total = { here: 0, elsewhere: 0 };
  const live = { here: 0, elsewhere: 0 };
  for (const [id, c] of counts) {
    const scope: Scope = id === sessionId ? 'here' : 'elsewhere';
    total[scope] += c.all;
    live[scope] += c.live;
  }
  return { counts: total, liveCounts: live };
}

/** One page of the record's entries, from `cursor`. */
async function recordPage(
  ctx: AppContext,
  hierarchy: Hierarchy,
  { counts, gaps }: RecordBasis,
  page: { cursor?: string | null; limit?: number },
  walked?: RecordReads,
): Promise<HumanRecord> {
  const db = ctx.store.kysely;
  const sessionId = hierarchy.sessionId;
  const limit = Math.min(Math.max(page.limit ?? RECORD_PAGE, 1), 200);
  const beforeId = page.cursor ? decodeCursor(page.cursor, 'human-messages') : undefined;
  const holding = holdingRecords(nodeIdsOf(hierarchy), counts);
  const rows = holding.length > 0 ? await humanMessagesOf(db, holding, { ...(beforeId !== undefined ? { beforeId } : {}), limit: limit + 1 }) : [];
  const pageRows = rows.slice(0, limit);
  const authors = await authorsOf(db, ctx, pageRows, walked?.users ?? usersByIds(db));
  return {
    sessionId,
    truncated: hierarchy.truncated,
    ...totalsByScope(sessionId, counts),
    gaps,
    entries: entriesOf(sessionId, pageRows, authors),
    nextCursor: rows.length > limit ? encodeCursor('human-messages', pageRows[pageRows.length - 1]!.id) : null,
    people: peopleOf(authors),
  };
}

/** `get_session`'s summary: the newest 5 per scope, with whole-record counts (docs/human-messages.md). */
export interface HumanSummary {
  record: Omit<HumanRecord, 'entries' | 'nextCursor'>;
  here: HumanMessageEntry[];
  elsewhere: HumanMessageEntry[];
}

async function summaryOf(ctx: AppContext, hierarchy: Hierarchy, { counts, gaps }: RecordBasis, walked?: RecordReads): Promise<HumanSummary> {
  const db = ctx.store.kysely;
  const sessionId = hierarchy.sessionId;
  const here = holdingRecords([sessionId], counts);
  const others = holdingRecords(
    nodeIdsOf(hierarchy).filter((id) => id !== sessionId),
    counts,
  );
  const hereRows = here.length > 0 ? await humanMessagesOf(db, here, { limit: SUMMARY_PER_SCOPE }) : [];
  const elsewhereRows = others.length > 0 ? await humanMessagesOf(db, others, { limit: SUMMARY_PER_SCOPE }) : [];
  const authors = await authorsOf(db, ctx, [...hereRows, ...elsewhereRows], walked?.users ?? usersByIds(db));
  return {
    // the record's counts and gaps; its people are the summary's authors (the summary's entries are its page)
    record: { sessionId, truncated: hierarchy.truncated, ...totalsByScope(sessionId, counts), gaps, people: peopleOf(authors) },
    here: entriesOf(sessionId, hereRows, authors),
    elsewhere: entriesOf(sessionId, elsewhereRows, authors),
  };
}
