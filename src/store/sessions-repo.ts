import type { Insertable } from 'kysely';
import type { Basis, ActBasis } from '../core/basis.js';
import type { Genesis, SchedulingClass } from '../core/genesis.js';
import type { SessionStatus } from '../core/lifecycle.js';
import { LEGACY_PARENT_KEY, legacyKeyNames, legacyParentKeySpellings, parseLegacyParentKey } from '../core/legacy-parent-key.js';
import { prefixUpperBound, type ParsedSessionRef } from '../core/session-ref.js';
import type { Executor, StoreDialect } from './dialect/dialect.js';
import { compiledForRows, compiledOnce, inIdList } from './compiled-once.js';
import type { Database } from './database.js';

/** How a runtime child came to be: a built-in subagent, or an agent started inside the runtime. */
export type RuntimeOrigin = 'subagent' | 'nested-agent';

/** A session row without its metadata blob (prompts and transcripts live in other tables). */
export interface SessionRecord {
  id: number;
  uid: string;
  title: string | null;
  slug: string | null;
  status: SessionStatus;
  ownerUserId: number | null;
  agentRoot: string | null;
  genesis: Genesis;
  schedulingClass: SchedulingClass;
  parentSessionId: number | null;
  parentBasis: Basis | null;
  creatorActorId: number | null;
  creatorBasis: ActBasis | null;
  causeActorId: number | null;
  causeBasis: ActBasis | null;
  model: string | null;
  starred: boolean;
  messaging: 'full' | 'reply-only';
  provider: string | null;
  providerConversation: string | null;
  /** the session whose runtime created this one for a subagent or nested agent (its token reports for it) */
  runtimeParentId: number | null;
  runtimeOrigin: RuntimeOrigin | null;
  activation: number;
  stopRequested: boolean;
  failureReason: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** the legacy parent key, extracted in SQL (the blob itself is not loaded) */
  legacyParentKey: string | null;
}

const CORE_COLUMNS = [
  'id',
  'uid',
  'title',
  'slug',
  'status',
  'owner_user_id',
  'agent_root',
  'genesis',
  'scheduling_class',
  'parent_session_id',
  'parent_basis',
  'creator_actor_id',
  'creator_basis',
  'cause_actor_id',
  'cause_basis',
  'model',
  'starred',
  'messaging',
  'provider',
  'provider_conversation',
  'runtime_parent_id',
  'runtime_origin',
  'activation',
  'stop_requested',
  'failure_reason',
  'version',
  'created_at',
  'updated_at',
] as const;

/** A session row as selectCore reads it (the store's session reads share it: session-list-repo.ts). */
export type CoreRow = Record<(typeof CORE_COLUMNS)[number], unknown> & { legacy_parent_key: string | null };

export function toRecord(row: CoreRow): SessionRecord {
  return {
    id: Number(row.id),
    uid: row.uid as string,
    title: row.title as string | null,
    slug: row.slug as string | null,
    status: row.status as SessionStatus,
    ownerUserId: row.owner_user_id === null ? null : Number(row.owner_user_id),
    agentRoot: row.agent_root as string | null,
    genesis: row.genesis as Genesis,
    schedulingClass: row.scheduling_class as SchedulingClass,
    parentSessionId: row.parent_session_id === null ? null : Number(row.parent_session_id),
    parentBasis: row.parent_basis as Basis | null,
    creatorActorId: row.creator_actor_id === null ? null : Number(row.creator_actor_id),
    creatorBasis: row.creator_basis as ActBasis | null,
    causeActorId: row.cause_actor_id === null ? null : Number(row.cause_actor_id),
    causeBasis: row.cause_basis as ActBasis | null,
    model: row.model as string | null,
    starred: Number(row.starred) === 1,
    messaging: row.messaging as 'full' | 'reply-only',
    provider: row.provider as string | null,
    providerConversation: row.provider_conversation as string | null,
    runtimeParentId: row.runtime_parent_id === null ? null : Number(row.runtime_parent_id),
    runtimeOrigin: row.runtime_origin as RuntimeOrigin | null,
    activation: Number(row.activation),
    stopRequested: Number(row.stop_requested) === 1,
    failureReason: row.failure_reason as string | null,
    version: Number(row.version),
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
    legacyParentKey: row.legacy_parent_key,
  };
}

export function selectCore(db: Executor, d: StoreDialect) {
  return db.selectFrom('sessions').select(CORE_COLUMNS).select(d.jsonTextField('custom_metadata', LEGACY_PARENT_KEY).as('legacy_parent_key'));
}

// the hottest reads: built and compiled once per store (compiled-once.ts)
const sessionRowById = compiledOnce((db, p: { id: number }, d) => selectCore(db, d).where('id', '=', p.id));
const sessionRowsByIds = compiledOnce((db, p: { ids: readonly number[] }, d) => selectCore(db, d).where(inIdList(d, 'id', p.ids)));
const sessionRowByUid = compiledOnce((db, p: { uid: string }, d) => selectCore(db, d).where('uid', '=', p.uid));
const sessionRowsByUidPrefix = compiledOnce((db, p: { from: string; below: string }, d) =>
  selectCore(db, d).where('uid', '>=', p.from).where('uid', '<', p.below).orderBy('id').limit(2),
);

export async function findSessionById(db: Executor, _d: StoreDialect, id: number): Promise<SessionRecord | null> {
  const [row] = await sessionRowById(db, { id });
  return row ? toRecord(row) : null;
}

export async function findSessionsByIds(db: Executor, _d: StoreDialect, ids: readonly number[]): Promise<SessionRecord[]> {
  if (ids.length === 0) return [];
  const rows = await sessionRowsByIds(db, { ids: [...new Set(ids)] });
  return rows.map((r) => toRecord(r as CoreRow));
}

/**
 * The store half of the one session-ref resolver: every session the parsed ref could name,
 * at most two (two means an ambiguous prefix).
 */
export async function findSessionsByRef(db: Executor, _d: StoreDialect, ref: ParsedSessionRef): Promise<SessionRecord[]> {
  let rows: CoreRow[];
  switch (ref.kind) {
    case 'id':
      rows = await sessionRowById(db, { id: ref.id });
      break;
    case 'uid':
      rows = await sessionRowByUid(db, { uid: ref.uid });
      break;
    case 'uid-prefix':
      rows = await sessionRowsByUidPrefix(db, { from: ref.prefix, below: prefixUpperBound(ref.prefix) });
      break;
    case 'invalid':
      return [];
  }
  return rows.map((r) => toRecord(r));
}

interface NewSessionRow {
  uid: string;
  /** the seq of the session's first event, taken at insert: that event is written in the same transaction */
  firstEventSeq: number;
  title: string | null;
  slug: string | null;
  status: SessionStatus;
  ownerUserId: number | null;
  agentRoot: string | null;
  genesis: Genesis;
  schedulingClass: SchedulingClass;
  parentSessionId: number | null;
  parentBasis: Basis | null;
  creatorActorId: number | null;
  creatorBasis: ActBasis | null;
  causeActorId: number | null;
  causeBasis: ActBasis | null;
  model: string | null;
  starred: boolean;
  messaging: 'full' | 'reply-only';
  customMetadata: string;
  provider: string | null;
  providerConversation: string | null;
  /** a runtime child (runtime-children.ts): its runtime parent, origin and the conversation it was created for */
  runtime?: { parentId: number; origin: RuntimeOrigin; conversationId: string };
  now: string;
}

// every create runs it: built and compiled once (compiled-once.ts; it was a fourteenth of a REST create's CPU)
const insertSessionRows = compiledForRows((db, rows: readonly Insertable<Database['sessions']>[], d) =>
  db.insertInto('sessions').values(rows).returning(CORE_COLUMNS).returning(d.jsonTextField('custom_metadata', LEGACY_PARENT_KEY).as('legacy_parent_key')),
);

/** Inserts the session and returns its record as `findSessionById` would read it (one statement). */
export async function insertSession(db: Executor, _d: StoreDialect, row: NewSessionRow): Promise<SessionRecord> {
  const [inserted] = await insertSessionRows(db, [
    {
      uid: row.uid,
      title: row.title,
      slug: row.slug,
      status: row.status,
      owner_user_id: row.ownerUserId,
      agent_root: row.agentRoot,
      genesis: row.genesis,
      scheduling_class: row.schedulingClass,
      parent_session_id: row.parentSessionId,
      parent_basis: row.parentBasis,
      creator_actor_id: row.creatorActorId,
      creator_basis: row.creatorBasis,
      cause_actor_id: row.causeActorId,
      cause_basis: row.causeBasis,
      model: row.model,
      starred: row.starred ? 1 : 0,
      messaging: row.messaging,
      custom_metadata: row.customMetadata,
      provider: row.provider,
      provider_conversation: row.providerConversation,
      // one statement text for every session: a runtime child's columns are null for any other
      runtime_parent_id: row.runtime?.parentId ?? null,
      runtime_origin: row.runtime?.origin ?? null,
      runtime_conversation_id: row.runtime?.conversationId ?? null,
      event_seq: row.firstEventSeq,
      created_at: row.now,
      updated_at: row.now,
    },
  ]);
  if (!inserted) throw new Error('sessions: the insert returned no row');
  return toRecord(inserted);
}

/** The child a runtime parent created for (provider, conversation), if any (one at most: a unique index). */
export async function findRuntimeChild(
  db: Executor,
  d: StoreDialect,
  parentId: number,
  provider: string,
  conversationId: string,
): Promise<SessionRecord | null> {
  const row = await selectCore(db, d)
    .where('runtime_parent_id', '=', parentId)
    .where('provider', '=', provider)
    .where('runtime_conversation_id', '=', conversationId)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}

export interface SessionChanges {
  title?: string | null;
  slug?: string | null;
  status?: SessionStatus;
  model?: string | null;
  starred?: boolean;
  messaging?: 'full' | 'reply-only';
  parentSessionId?: number | null;
  parentBasis?: Basis | null;
  activation?: number;
  stopRequested?: boolean;
  failureReason?: string | null;
  provider?: string | null;
  providerConversation?: string | null;
}

/**
 * Compare-and-set on the row version: the update lands only if nobody changed the row since
 * it was read, so two concurrent identical changes record exactly one event (docs/concepts.md, docs/attribution.md).
 * Returns false when the row moved (the caller re-reads and decides again).
 */
export async function updateSessionIfVersion(db: Executor, id: number, expectedVersion: number, changes: SessionChanges, now: string): Promise<boolean> {
  const set: Record<string, unknown> = { version: expectedVersion + 1, updated_at: now };
  if ('title' in changes) set.title = changes.title;
  if ('slug' in changes) set.slug = changes.slug;
  if ('status' in changes) set.status = changes.status;
  if ('model' in changes) set.model = changes.model;
  if ('starred' in changes) set.starred = changes.starred ? 1 : 0;
  if ('messaging' in changes) set.messaging = changes.messaging;
  if ('parentSessionId' in changes) set.parent_session_id = changes.parentSessionId;
  if ('parentBasis' in changes) set.parent_basis = changes.parentBasis;
  if ('activation' in changes) set.activation = changes.activation;
  if ('stopRequested' in changes) set.stop_requested = changes.stopRequested ? 1 : 0;
  if ('failureReason' in changes) set.failure_reason = changes.failureReason;
  if ('provider' in changes) set.provider = changes.provider;
  if ('providerConversation' in changes) set.provider_conversation = changes.providerConversation;
  const result = await db.updateTable('sessions').set(set).where('id', '=', id).where('version', '=', expectedVersion).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

const customMetadataOf = compiledOnce((db, p: { ids: readonly number[] }, d) =>
  db
    .selectFrom('sessions')
    .select(['id', 'custom_metadata'])
    .where(inIdList(d, 'id', p.ids)),
);

export async function loadCustomMetadata(db: Executor, ids: readonly number[]): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>();
  if (ids.length === 0) return out;
  const rows = await customMetadataOf(db, { ids: [...new Set(ids)] });
  for (const row of rows) {
    try {
      out.set(Number(row.id), JSON.parse(row.custom_metadata) as Record<string, unknown>);
    } catch {
      out.set(Number(row.id), {});
    }
  }
  return out;
}

/** Sessions named by legacy parent keys (core/legacy-parent-key.ts), by the key as stored. */
export async function resolveLegacyKeys(db: Executor, d: StoreDialect, keys: readonly string[]): Promise<Map<string, SessionRecord>> {
  const out = new Map<string, SessionRecord>();
  const refs = keys.map((k) => [k, parseLegacyParentKey(k)] as const);
  const ids = [...new Set(refs.flatMap(([, r]) => (r?.kind === 'id' ? [r.id] : [])))];
  const uids = [...new Set(refs.flatMap(([, r]) => (r?.kind === 'uid' ? [r.uid] : [])))];
  if (ids.length === 0 && uids.length === 0) return out;
  const rows = await selectCore(db, d)
    .where((eb) => {
      const ors = [];
      if (ids.length > 0) ors.push(eb('id', 'in', ids));
      if (uids.length > 0) ors.push(eb('uid', 'in', uids));
      return eb.or(ors);
    })
    .execute();
  const records = rows.map((r) => toRecord(r as CoreRow));
  for (const [key] of refs) {
    const named = records.find((rec) => legacyKeyNames(key, rec));
    if (named) out.set(key, named);
  }
  return out;
}

/**
 * Spawn children of `ids` over both spawn representations: the column, and the legacy key
 * (only where the create accepted it: parent_basis = 'legacy').
 */
export async function spawnChildrenOf(
  db: Executor,
  d: StoreDialect,
  parents: readonly { id: number; uid: string }[],
): Promise<{ parentId: number; child: SessionRecord }[]> {
  if (parents.length === 0) return [];
  const ids = parents.map((p) => p.id);
  const keyToId = new Map<string, number>();
  for (const p of parents) for (const spelling of legacyParentKeySpellings(p)) keyToId.set(spelling, p.id);
  const legacy = d.jsonTextField('custom_metadata', LEGACY_PARENT_KEY);
  const rows = await selectCore(db, d)
    .where((eb) => eb.or([eb('parent_session_id', 'in', ids), eb.and([eb(legacy, 'in', [...keyToId.keys()]), eb('parent_basis', '=', 'legacy')])]))
    .orderBy('id')
    .execute();
  const out: { parentId: number; child: SessionRecord }[] = [];
  for (const r of rows) {
    const child = toRecord(r);
    const parentId = child.parentBasis === 'legacy' && child.legacyParentKey !== null ? keyToId.get(child.legacyParentKey) : child.parentSessionId;
    if (parentId !== undefined && parentId !== null) out.push({ parentId, child });
  }
  return out;
}

/** The words a session was created with (its prompt, and the original when the title came from elsewhere). */
export async function insertSessionPrompt(db: Executor, sessionId: number, prompt: string | null, originalPrompt: string | null): Promise<void> {
  await db.insertInto('session_prompts').values({ session_id: sessionId, prompt, original_prompt: originalPrompt }).execute();
}

/** Title and owner of each session, for naming actors (and hiding those the reader may not see). */
export async function sessionTitlesAndOwners(
  db: Executor,
  ids: readonly number[],
): Promise<{ id: number; title: string | null; ownerUserId: number | null }[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('sessions')
    .select(['id', 'title', 'owner_user_id'])
    .where('id', 'in', [...ids])
    .execute();
  return rows.map((r) => ({ id: Number(r.id), title: r.title, ownerUserId: r.owner_user_id === null ? null : Number(r.owner_user_id) }));
}

export async function sessionCreatedAt(db: Executor, id: number): Promise<string | null> {
  const row = await db.selectFrom('sessions').select('created_at').where('id', '=', id).executeTakeFirst();
  return row?.created_at ?? null;
}

/** Each session's current activation and status. */
export async function sessionActivations(db: Executor, ids: readonly number[]): Promise<{ id: number; activation: number; status: string }[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('sessions')
    .select(['id', 'activation', 'status'])
    .where('id', 'in', [...ids])
    .execute();
  return rows.map((r) => ({ id: Number(r.id), activation: Number(r.activation), status: r.status }));
}

export async function deleteSessionRow(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('sessions').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Bumps the per-session event sequence (the row lock orders concurrent writers). */
// every event takes one: built and compiled once (compiled-once.ts)
const takeEventSeq = compiledOnce((db, p: { sessionId: number }) =>
  db
    .updateTable('sessions')
    .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }))
    .where('id', '=', p.sessionId)
    .returning('event_seq'),
);

export async function nextEventSeq(db: Executor, sessionId: number): Promise<number> {
  const [row] = await takeEventSeq(db, { sessionId });
  if (!row) throw new Error(`session ${sessionId} has no row to take an event seq from`);
  return Number(row.event_seq);
}
