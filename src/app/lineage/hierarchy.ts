import { walkHierarchy } from '../../core/hierarchy-walk.js';
import { DEFAULT_BOUNDS, hierarchyFromOutcome, type Hierarchy, type OwnerFilter, type WalkBounds, type WalkOutcome } from '../../core/hierarchy-types.js';
import type { Executor } from '../../store/dialect/dialect.js';
import type { HierarchyRow } from '../../store/lineage-repo.js';
import type { SessionRecord } from '../../store/sessions-repo.js';
import { usersByIds, type UsersByIds } from '../user-reads.js';
import { authorize, resolveRef, sessionNotFound, visibilityOf, type Visibility } from '../access.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { runWalkOnStore } from './walk-driver.js';
import { cachedWalk } from './walk-cache.js';

/**
 * Visibility (docs/concepts.md) applies inside the walk: a session the caller
 * may not see is treated as absent — never traversed, rendered, counted as a hidden senior
 * or as a reason for truncation — exactly as a 404 treats it. So a scoped caller's tree is
 * the hierarchy of the sessions it can see, and reveals nothing about the others.
 */
export function ownerFilterOf(visibility: Visibility): OwnerFilter {
  return visibility === 'all' ? 'all' : visibility.owners;
}

/** A session record as the walk reads it (the projection's fields; no blobs). */
function hierarchyRowOf(s: SessionRecord): HierarchyRow {
  return {
    id: s.id,
    uid: s.uid,
    title: s.title,
    status: s.status,
    ownerUserId: s.ownerUserId,
    agentRoot: s.agentRoot,
    genesis: s.genesis,
    schedulingClass: s.schedulingClass,
    parentSessionId: s.parentSessionId,
    parentBasis: s.parentBasis,
    legacyParentKey: s.legacyParentKey,
    createdAt: s.createdAt,
  };
}

/** Names each rendered node's owner by roster key: one query for all the outcomes. */
export async function hierarchiesFromOutcomes(
  db: Executor,
  outcomes: readonly WalkOutcome<HierarchyRow>[],
  bounds: WalkBounds,
  usersOf: UsersByIds = usersByIds(db),
): Promise<Hierarchy[]> {
  const ownerIds = new Set<number>();
  for (const o of outcomes) for (const n of o.nodes) if (n.row.ownerUserId !== null) ownerIds.add(n.row.ownerUserId);
  const users = ownerIds.size > 0 ? await usersOf([...ownerIds]) : new Map();
  return outcomes.map((o) => hierarchyFromOutcome(o, bounds, (id) => (id === null ? null : (users.get(id)?.key ?? null))));
}

/** The walk's rows by id, for what the record reads beside the hierarchy (see WalkedRows). */
export function walkedRowsOf(outcome: WalkOutcome<HierarchyRow>): { createdAtOf(id: number): string | undefined } {
  let byId: Map<number, HierarchyRow> | null = null;
  return {
    createdAtOf(id) {
      byId ??= new Map(outcome.nodes.map((n) => [n.row.id, n.row]));
      return byId.get(id)?.createdAt;
    },
  };
}

/** The walk for a resolved session under a visibility: the request path (one query per read). */
export async function walkSession(
  ctx: AppContext,
  session: SessionRecord,
  owners: OwnerFilter,
  bounds: WalkBounds = DEFAULT_BOUNDS,
  /** the request's roster reads (a per-request memo), for the owners' keys */
  users?: UsersByIds,
  /** serve it from the walk cache when the store proves the cached walk current (walk-cache.ts) */
  cached = false,
): Promise<{ hierarchy: Hierarchy; outcome: WalkOutcome<HierarchyRow> }> {
  const db = ctx.store.kysely;
  const outcome =
    (cached ? await cachedWalk(ctx, session.id, owners, bounds) : null) ??
    (await runWalkOnStore(walkHierarchy(hierarchyRowOf(session), owners, bounds), db, ctx.store));
  const [hierarchy] = await hierarchiesFromOutcomes(db, [outcome], bounds, users);
  return { hierarchy: hierarchy!, outcome };
}

/**
 * The same walk, served from the walk cache when the store proves it current (walk-cache.ts):
 * what a read returns is never staler than the store.
 */
export async function walkSessionCached(
  ctx: AppContext,
  session: SessionRecord,
  owners: OwnerFilter,
  bounds: WalkBounds = DEFAULT_BOUNDS,
  users?: UsersByIds,
): Promise<{ hierarchy: Hierarchy; outcome: WalkOutcome<HierarchyRow> }> {
  return walkSession(ctx, session, owners, bounds, users, true);
}

/**
 * `hierarchyOf(S)` (docs/concepts.md): the hierarchy of the session `ref` names, as `caller` may see
 * it. The one function every surface calls; a session the caller cannot see is a 404.
 */
export async function hierarchyOf(ctx: AppContext, caller: Caller, ref: string | number, bounds: WalkBounds = DEFAULT_BOUNDS): Promise<Hierarchy> {
  const { session, visibility } = await resolveReadable(ctx, caller, ref);
  return (await walkSessionCached(ctx, session, ownerFilterOf(visibility), bounds)).hierarchy;
}

/** Resolves a ref the caller may read, returning the visibility it was resolved under. */
export async function resolveReadable(ctx: AppContext, caller: Caller, ref: string | number): Promise<{ session: SessionRecord; visibility: Visibility }> {
  const db = ctx.store.kysely;
  const visibility = await visibilityOf(db, ctx, caller);
  const r = await resolveRef(db, ctx, visibility, ref);
  if (!r.session) throw sessionNotFound(ref, r.reason);
  await authorize(db, ctx, caller, 'read', r.session);
  return { session: r.session, visibility };
}
