import type { ActorKind } from '../core/actors.js';
import type { ActBasis, Basis } from '../core/basis.js';
import type { Genesis, SchedulingClass } from '../core/genesis.js';
import type { SessionStatus } from '../core/lifecycle.js';
import { loadActors } from '../store/actors-repo.js';
import type { Executor } from '../store/dialect/dialect.js';
import { loadCustomMetadata, resolveLegacyKeys, sessionTitlesAndOwners, type SessionRecord } from '../store/sessions-repo.js';
import { usersByIds, type UsersByIds } from './user-reads.js';
import type { AppContext } from './context.js';

/**
 * Owners whose sessions a reader may see, or 'all' (the multi-user scoping rule; access.ts
 * computes it for a caller). Declared here so every view builder takes one.
 */
export type Visibility = 'all' | { owners: (number | null)[] };

export function isVisible(visibility: Visibility, ownerUserId: number | null): boolean {
  return visibility === 'all' || visibility.owners.includes(ownerUserId);
}

/** An actor as every surface shows it; names are resolved when read (renames rewrite nothing). */
export interface ActorView {
  kind: ActorKind;
  /** roster key, session id, client name; null for system and fleet */
  ref: string | null;
  displayName: string | null;
}

/**
 * A session actor the reader may not see: an unnamed session — no title, id, uid or owner
 * (docs/design/sessions.md, "Multi-user scoping"). `ref: null` on a `session` actor means exactly this.
 */
const HIDDEN_SESSION: ActorView = Object.freeze({ kind: 'session', ref: null, displayName: null });

export function isHiddenSession(actor: Pick<ActorView, 'kind' | 'ref'> | null | undefined): boolean {
  return actor?.kind === 'session' && actor.ref === null;
}

/**
 * An act's actor and cause from `actorViews`' map. A session actor's cause is the one reached
 * through that session; when the reader may not see the session, naming its cause (usually
 * the session's owner) would tell whose it is — so the cause is unnamed with it.
 */
export function actorAndCause(
  actors: ReadonlyMap<number, ActorView>,
  actorId: number | null,
  causeId: number | null,
): { actor: ActorView | null; cause: ActorView | null } {
  const actor = actorId === null ? null : (actors.get(actorId) ?? null);
  const cause = causeId === null ? null : (actors.get(causeId) ?? null);
  return { actor, cause: cause && isHiddenSession(actor) ? { ...HIDDEN_SESSION } : cause };
}

export interface SessionView {
  id: number;
  uid: string;
  title: string | null;
  slug: string | null;
  status: SessionStatus;
  owner: string | null;
  agentRoot: string | null;
  genesis: Genesis;
  schedulingClass: SchedulingClass;
  parentSessionId: number | null;
  parentBasis: Basis | null;
  lineageParentId: number | null;
  creator: ActorView | null;
  creatorBasis: ActBasis | null;
  cause: ActorView | null;
  causeBasis: ActBasis | null;
  model: string | null;
  starred: boolean;
  messaging: 'full' | 'reply-only';
  customMetadata?: Record<string, unknown>;
  provider: string | null;
  providerConversation: string | null;
  runtimeParentId: number | null;
  runtimeOrigin: 'subagent' | 'nested-agent' | null;
  activation: number;
  createdAt: string;
  updatedAt: string;
}

/** The lineage parent every reader uses: the column, or the legacy key's session (docs/concepts.md). */
export async function lineageParents(db: Executor, ctx: AppContext, records: readonly SessionRecord[]): Promise<Map<number, number | null>> {
  const out = new Map<number, number | null>();
  const legacyKeys: string[] = [];
  for (const r of records) {
    if (r.parentBasis === 'legacy' && r.legacyParentKey !== null) legacyKeys.push(r.legacyParentKey);
    else out.set(r.id, r.parentSessionId);
  }
  if (legacyKeys.length > 0) {
    const resolved = await resolveLegacyKeys(db, ctx.store, legacyKeys);
    for (const r of records) {
      if (r.parentBasis === 'legacy' && r.legacyParentKey !== null) {
        const parent = resolved.get(r.legacyParentKey);
        // a key naming a session that no longer exists means "no parent"; so does a younger one
        out.set(r.id, parent && parent.id < r.id ? parent.id : null);
      }
    }
  }
  return out;
}

/**
 * Expands actor ids into views as `visibility`'s reader may see them: humans by their current
 * roster row, sessions by title — or, for a session the reader may not see, HIDDEN_SESSION.
 * This is the one place the rule is applied; every surface renders what comes out of here.
 */
export async function actorViews(
  db: Executor,
  ctx: AppContext,
  ids: readonly (number | null)[],
  visibility: Visibility,
  users: UsersByIds = usersByIds(db),
): Promise<Map<number, ActorView>> {
  return (await actorViewsAndUsers(db, ctx, ids, [], users, visibility)).actors;
}

/**
 * actorViews, reading the roster rows of `alsoUsers` in the same query as the actors' (a
 * session view names its creator, its cause and its owner).
 */
async function actorViewsAndUsers(
  db: Executor,
  ctx: AppContext,
  ids: readonly (number | null)[],
  alsoUsers: readonly number[],
  usersOf: UsersByIds,
  visibility: Visibility,
): Promise<{ actors: Map<number, ActorView>; users: Awaited<ReturnType<UsersByIds>> }> {
  const wanted = ids.filter((i): i is number => i !== null);
  const actors = await loadActors(db, ctx.actors, wanted);
  const userIds: number[] = [...alsoUsers];
  const sessionIds: number[] = [];
  for (const a of actors.values()) {
    if (a.kind === 'human') userIds.push(Number(a.ref));
    if (a.kind === 'session') sessionIds.push(Number(a.ref));
  }
  const users = userIds.length > 0 ? await usersOf(userIds) : new Map();
  const titles = new Map<number, string | null>();
  const visible = new Set<number>();
  if (sessionIds.length > 0) {
    for (const r of await sessionTitlesAndOwners(db, sessionIds)) {
      titles.set(r.id, r.title);
      if (isVisible(visibility, r.ownerUserId)) visible.add(r.id);
    }
  }
  const out = new Map<number, ActorView>();
  for (const [id, a] of actors) {
    switch (a.kind) {
      case 'human': {
        const u = users.get(Number(a.ref));
        out.set(id, { kind: 'human', ref: u?.key ?? null, displayName: u?.displayName ?? null });
        break;
      }
      case 'session':
        // a deleted session's owner is unknown: only an all-seeing reader keeps its id
        if (visibility === 'all' || visible.has(Number(a.ref))) {
          out.set(id, { kind: 'session', ref: a.ref, displayName: titles.get(Number(a.ref)) ?? null });
        } else {
          out.set(id, { ...HIDDEN_SESSION });
        }
        break;
      case 'client':
        out.set(id, { kind: 'client', ref: a.ref, displayName: a.ref });
        break;
      default:
        out.set(id, { kind: a.kind, ref: null, displayName: null });
    }
  }
  return { actors: out, users };
}

/** Builds full session views in a fixed number of queries, whatever the count. */
export async function sessionViews(
  db: Executor,
  ctx: AppContext,
  records: readonly SessionRecord[],
  /** whose eyes: creators and causes the reader may not see are unnamed sessions */
  visibility: Visibility,
  /** `metadata`: the blobs the caller already holds (a create that just wrote them), by session id */
  options: { withMetadata?: boolean; users?: UsersByIds; metadata?: ReadonlyMap<number, Record<string, unknown>> } = {},
): Promise<SessionView[]> {
  if (records.length === 0) return [];
  const parents = await lineageParents(db, ctx, records);
  // the creators', causes' and owners' roster rows in one read
  const { actors, users: owners } = await actorViewsAndUsers(
    db,
    ctx,
    records.flatMap((r) => [r.creatorActorId, r.causeActorId]),
    records.map((r) => r.ownerUserId).filter((o): o is number => o !== null),
    options.users ?? usersByIds(db),
    visibility,
  );
  const metadata = !options.withMetadata
    ? null
    : (options.metadata ??
      (await loadCustomMetadata(
        db,
        records.map((r) => r.id),
      )));
  return records.map((r) => {
    const { actor: creator, cause } = actorAndCause(actors, r.creatorActorId, r.causeActorId);
    const view: SessionView = {
      id: r.id,
      uid: r.uid,
      title: r.title,
      slug: r.slug,
      status: r.status,
      owner: r.ownerUserId === null ? null : (owners.get(r.ownerUserId)?.key ?? null),
      agentRoot: r.agentRoot,
      genesis: r.genesis,
      schedulingClass: r.schedulingClass,
      parentSessionId: r.parentSessionId,
      parentBasis: r.parentBasis,
      lineageParentId: parents.get(r.id) ?? null,
      creator,
      creatorBasis: r.creatorBasis,
      cause,
      causeBasis: r.causeBasis,
      model: r.model,
      starred: r.starred,
      messaging: r.messaging,
      provider: r.provider,
      providerConversation: r.providerConversation,
      runtimeParentId: r.runtimeParentId,
      runtimeOrigin: r.runtimeOrigin,
      activation: r.activation,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
    if (metadata) view.customMetadata = metadata.get(r.id) ?? {};
    return view;
  });
}

export async function sessionView(
  db: Executor,
  ctx: AppContext,
  record: SessionRecord,
  visibility: Visibility,
  withMetadata = true,
  known: { users?: UsersByIds; metadata?: Record<string, unknown> } = {},
): Promise<SessionView> {
  const [view] = await sessionViews(db, ctx, [record], visibility, {
    withMetadata,
    ...(known.users ? { users: known.users } : {}),
    ...(known.metadata ? { metadata: new Map([[record.id, known.metadata]]) } : {}),
  });
  return view!;
}
