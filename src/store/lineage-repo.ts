import { sql, type SelectQueryBuilder } from 'kysely';
import type { Basis } from '../core/basis.js';
import type { Genesis, SchedulingClass } from '../core/genesis.js';
import type { SessionStatus } from '../core/lifecycle.js';
import type { Database } from './database.js';
import type { Executor, StoreDialect } from './dialect/dialect.js';
import { LEGACY_PARENT_KEY } from './sessions-repo.js';

/**
 * spec 02 "The walk reads a projection, never whole rows": the only columns lineage reads.
 * Adding a field to a hierarchy node means adding it here.
 */
export const HIERARCHY_COLUMNS = [
  'id',
  'uid',
  'title',
  'status',
  'owner_user_id',
  'agent_root',
  'genesis',
  'scheduling_class',
  'parent_session_id',
  'parent_basis',
  'created_at',
] as const;

export interface HierarchyRow {
  id: number;
  uid: string;
  title: string | null;
  status: SessionStatus;
  ownerUserId: number | null;
  agentRoot: string | null;
  genesis: Genesis;
  schedulingClass: SchedulingClass;
  parentSessionId: number | null;
  parentBasis: Basis | null;
  legacyParentKey: string | null;
  createdAt: string;
}

export type EdgeKind = 'spawn' | 'uncle';

/** One edge as lineage reads it: the senior → junior pair and, for uncles, the edge's record. */
export interface LineageEdge {
  seniorId: number;
  juniorId: number;
  kind: EdgeKind;
  /** uncle edges only */
  basis: 'authenticated' | 'declared' | null;
  source: string | null;
  createdAt: string | null;
}

type RawRow = Record<string, unknown>;

/** The columns juniorBranches adds to the projection: the legacy key and the edge. */
const EDGE_COLUMNS = ['legacy_parent_key', 'edge_kind', 'edge_via', 'edge_basis', 'edge_source', 'edge_created_at'] as const;

function toRow(r: RawRow): HierarchyRow {
  return {
    id: Number(r.id),
    uid: r.uid as string,
    title: r.title as string | null,
    status: r.status as SessionStatus,
    ownerUserId: r.owner_user_id === null ? null : Number(r.owner_user_id),
    agentRoot: r.agent_root as string | null,
    genesis: r.genesis as Genesis,
    schedulingClass: r.scheduling_class as SchedulingClass,
    parentSessionId: r.parent_session_id === null ? null : Number(r.parent_session_id),
    parentBasis: r.parent_basis as Basis | null,
    legacyParentKey: (r.legacy_parent_key as string | null) ?? null,
    createdAt: r.created_at as string,
  };
}

/** The projection with edge columns, identical across the UNION ALL branches. */
function projected(
  q: SelectQueryBuilder<any, any, {}>,
  d: StoreDialect,
  alias: string,
  edge: { kind: EdgeKind; via: string; basis: string | null; source: string | null; createdAt: string | null },
) {
  return q.select([
    ...HIERARCHY_COLUMNS.map((c) => sql.ref(`${alias}.${c}`).as(c)),
    d.jsonTextField(`${alias}.custom_metadata`, LEGACY_PARENT_KEY).as('legacy_parent_key'),
    sql.lit(edge.kind).as('edge_kind'),
    sql.ref(edge.via).as('edge_via'),
    (edge.basis ? sql.ref(edge.basis) : sql.lit(null)).as('edge_basis'),
    (edge.source ? sql.ref(edge.source) : sql.lit(null)).as('edge_source'),
    (edge.createdAt ? sql.ref(edge.createdAt) : sql.lit(null)).as('edge_created_at'),
  ]);
}

export async function loadHierarchyRows(db: Executor, d: StoreDialect, ids: readonly number[]): Promise<HierarchyRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('sessions as s')
    .select([...HIERARCHY_COLUMNS.map((c) => `s.${c}` as const), d.jsonTextField('s.custom_metadata', LEGACY_PARENT_KEY).as('legacy_parent_key')])
    .where('s.id', 'in', [...new Set(ids)])
    .execute();
  return rows.map((r) => toRow(r as RawRow));
}

function uidLike(key: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(key);
}

/** Restricts a query on sessions `c` to the owners a scoped caller may see (spec 01). */
function ownedBy(eb: any, visibleOwners: readonly (number | null)[] | undefined) {
  if (!visibleOwners) return sql<boolean>`1 = 1`;
  const owners = visibleOwners.filter((o): o is number => o !== null);
  const ors = [];
  if (owners.length > 0) ors.push(eb('c.owner_user_id', 'in', owners));
  if (visibleOwners.includes(null)) ors.push(eb('c.owner_user_id', 'is', null));
  return ors.length > 0 ? eb.or(ors) : sql<boolean>`1 = 0`;
}

interface JuniorScope {
  ids: number[];
  keys: string[];
  keyToId: Map<string, number>;
}

function juniorScope(seniors: readonly Pick<HierarchyRow, 'id' | 'uid'>[]): JuniorScope {
  const ids = [...new Set(seniors.map((s) => s.id))];
  const keyToId = new Map<string, number>();
  for (const s of seniors) {
    keyToId.set(String(s.id), s.id);
    keyToId.set(s.uid, s.id);
  }
  return { ids, keys: [...keyToId.keys()], keyToId };
}

/**
 * The three edge representations downward, as three branches over sessions `c`: the
 * column (a spawn parent is always older), the legacy key (only where the create accepted
 * it: parent_basis = 'legacy'), and the uncle table. `restrict` narrows every branch.
 */
function juniorBranches(db: Executor, d: StoreDialect, scope: JuniorScope, restrict: (eb: any) => any) {
  const legacy = d.jsonTextField('c.custom_metadata', LEGACY_PARENT_KEY);
  const spawn = projected(db.selectFrom('sessions as c') as any, d, 'c', { kind: 'spawn', via: 'c.parent_session_id', basis: null, source: null, createdAt: null })
    .where('c.parent_session_id', 'in', scope.ids)
    .where(restrict);
  const legacyChildren = projected(db.selectFrom('sessions as c') as any, d, 'c', { kind: 'spawn', via: 'c.id', basis: null, source: null, createdAt: null })
    .where(legacy, 'in', scope.keys)
    .where('c.parent_basis', '=', 'legacy')
    .where(restrict);
  const uncles = projected(db.selectFrom('session_uncles as u').innerJoin('sessions as c', 'c.id', 'u.session_id') as any, d, 'c', {
    kind: 'uncle',
    via: 'u.uncle_session_id',
    basis: 'u.basis',
    source: 'u.source',
    createdAt: 'u.created_at',
  })
    .where('u.uncle_session_id', 'in', scope.ids)
    .where(restrict);
  return spawn.unionAll(legacyChildren).unionAll(uncles);
}

/** Resolves the rows of juniorBranches into edges; the only place that reads them. */
function resolveJuniorRows(rows: RawRow[], scope: JuniorScope): { edge: LineageEdge; junior: HierarchyRow }[] {
  const out: { edge: LineageEdge; junior: HierarchyRow }[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    const junior = toRow(r);
    let seniorId: number | undefined;
    const kind = r.edge_kind as EdgeKind;
    if (kind === 'uncle') seniorId = Number(r.edge_via);
    else if (junior.parentBasis === 'legacy') seniorId = junior.legacyParentKey !== null ? scope.keyToId.get(junior.legacyParentKey) : undefined;
    else seniorId = junior.parentSessionId ?? undefined;
    if (seniorId === undefined) continue;
    // a spawn parent is always older than its child
    if (kind === 'spawn' && seniorId >= junior.id) continue;
    const key = `${kind}:${seniorId}:${junior.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({
      edge: {
        seniorId,
        juniorId: junior.id,
        kind,
        basis: (r.edge_basis as 'authenticated' | 'declared' | null) ?? null,
        source: (r.edge_source as string | null) ?? null,
        createdAt: (r.edge_created_at as string | null) ?? null,
      },
      junior,
    });
  }
  out.sort((a, b) => a.junior.id - b.junior.id || a.edge.seniorId - b.edge.seniorId || a.edge.kind.localeCompare(b.edge.kind));
  return out;
}

/**
 * juniorsOf — the one place the three edge representations (column, legacy key, uncle table)
 * are resolved downward. One query for the whole batch of seniors. Each junior comes with
 * the senior that reached it.
 */
export async function juniorsOf(
  db: Executor,
  d: StoreDialect,
  seniors: readonly Pick<HierarchyRow, 'id' | 'uid'>[],
): Promise<{ edge: LineageEdge; junior: HierarchyRow }[]> {
  if (seniors.length === 0) return [];
  const scope = juniorScope(seniors);
  const rows = (await juniorBranches(db, d, scope, () => sql<boolean>`1 = 1`).execute()) as RawRow[];
  return resolveJuniorRows(rows, scope);
}

export interface JuniorsPageOptions {
  /** only juniors with a larger id */
  afterId?: number;
  /** juniors never returned (sessions already placed) */
  exclude?: readonly number[];
  /** at most this many distinct juniors: the lowest ids */
  limit: number;
  /** only juniors of these owners (null = unowned); absent = every owner */
  visibleOwners?: readonly (number | null)[];
}

export interface JuniorsPage {
  /** every edge from the given seniors to each picked junior, sorted by junior id */
  edges: { edge: LineageEdge; junior: HierarchyRow }[];
  /** the highest junior id picked; the next page starts after it */
  lastPickedId: number | null;
  /** fewer than `limit` juniors qualified */
  exhausted: boolean;
}

/**
 * juniorsOf, one page: the `limit` lowest-id juniors of `seniors` (above `afterId`, not
 * excluded, visible) with all their edges from `seniors` — still one query, so a router
 * with thousands of children costs the walk a page, not the whole fan-out (spec 07: the read
 * depends on the hierarchy shown, not on the fleet).
 */
export async function juniorsPageOf(
  db: Executor,
  d: StoreDialect,
  seniors: readonly Pick<HierarchyRow, 'id' | 'uid'>[],
  options: JuniorsPageOptions,
): Promise<JuniorsPage> {
  if (seniors.length === 0 || options.limit <= 0) return { edges: [], lastPickedId: null, exhausted: true };
  const scope = juniorScope(seniors);
  const after = options.afterId ?? 0;
  const exclude = [...new Set(options.exclude ?? [])];
  const legacy = d.jsonTextField('c.custom_metadata', LEGACY_PARENT_KEY);
  const qualifies = (eb: any) => {
    const ands = [eb('c.id', '>', after), ownedBy(eb, options.visibleOwners)];
    if (exclude.length > 0) ands.push(eb('c.id', 'not in', exclude));
    return eb.and(ands);
  };
  // the picked juniors: distinct ids over the three representations, lowest first
  const pickedIds = (db.selectFrom('sessions as c') as any)
    .select('c.id as id')
    .where('c.parent_session_id', 'in', scope.ids)
    .whereRef('c.id', '>', 'c.parent_session_id')
    .where(qualifies)
    .union((db.selectFrom('sessions as c') as any).select('c.id as id').where(legacy, 'in', scope.keys).where('c.parent_basis', '=', 'legacy').where(qualifies))
    .union(
      (db.selectFrom('session_uncles as u').innerJoin('sessions as c', 'c.id', 'u.session_id') as any)
        .select('c.id as id')
        .where('u.uncle_session_id', 'in', scope.ids)
        .where(qualifies),
    )
    .orderBy('id')
    .limit(options.limit);
  // one statement: pick the ids in a CTE, then read the projection and edges for them
  const query = (db as any)
    .with('picked', () => pickedIds)
    .selectFrom(juniorBranches(db, d, scope, (eb: any) => eb('c.id', 'in', sql`(select id from picked)`)).as('j'))
    .select([...HIERARCHY_COLUMNS, ...EDGE_COLUMNS].map((c) => `j.${c}`));
  const rows = (await query.execute()) as RawRow[];
  const picked = [...new Set(rows.map((r) => Number(r.id)))].sort((a, b) => a - b);
  if (picked.length === 0) return { edges: [], lastPickedId: null, exhausted: true };
  return { edges: resolveJuniorRows(rows, scope), lastPickedId: picked[picked.length - 1]!, exhausted: picked.length < options.limit };
}

/**
 * seniorsOf — the mirror of juniorsOf: each junior's lineage parent (column or legacy key)
 * and its uncles, in one query for the whole batch.
 */
export async function seniorsOf(
  db: Executor,
  d: StoreDialect,
  juniors: readonly Pick<HierarchyRow, 'id' | 'parentSessionId' | 'parentBasis' | 'legacyParentKey'>[],
): Promise<{ edge: LineageEdge; senior: HierarchyRow }[]> {
  if (juniors.length === 0) return [];
  const parentIds = new Set<number>();
  const legacyIds = new Set<number>();
  const legacyUids = new Set<string>();
  for (const j of juniors) {
    if (j.parentBasis === 'legacy') {
      const key = j.legacyParentKey;
      if (key === null) continue;
      if (/^[0-9]{1,15}$/.test(key)) legacyIds.add(Number(key));
      else if (uidLike(key)) legacyUids.add(key);
    } else if (j.parentSessionId !== null) parentIds.add(j.parentSessionId);
  }
  const juniorIds = [...new Set(juniors.map((j) => j.id))];
  const byIdOrUid = [...parentIds, ...legacyIds];
  const parents = projected(db.selectFrom('sessions as p') as any, d, 'p', { kind: 'spawn', via: 'p.id', basis: null, source: null, createdAt: null }).where((eb: any) => {
    const ors = [];
    if (byIdOrUid.length > 0) ors.push(eb('p.id', 'in', byIdOrUid));
    if (legacyUids.size > 0) ors.push(eb('p.uid', 'in', [...legacyUids]));
    return ors.length > 0 ? eb.or(ors) : sql<boolean>`1 = 0`;
  });
  const uncles = projected(db.selectFrom('session_uncles as u').innerJoin('sessions as p', 'p.id', 'u.uncle_session_id') as any, d, 'p', {
    kind: 'uncle',
    via: 'u.session_id',
    basis: 'u.basis',
    source: 'u.source',
    createdAt: 'u.created_at',
  }).where('u.session_id', 'in', juniorIds);
  const rows = (await parents.unionAll(uncles).execute()) as RawRow[];
  const parentRows = new Map<string, HierarchyRow>();
  const out: { edge: LineageEdge; senior: HierarchyRow }[] = [];
  for (const r of rows) {
    const senior = toRow(r);
    if (r.edge_kind === 'spawn') {
      parentRows.set(String(senior.id), senior);
      parentRows.set(senior.uid, senior);
    } else {
      out.push({
        edge: {
          seniorId: senior.id,
          juniorId: Number(r.edge_via),
          kind: 'uncle',
          basis: (r.edge_basis as 'authenticated' | 'declared' | null) ?? null,
          source: (r.edge_source as string | null) ?? null,
          createdAt: (r.edge_created_at as string | null) ?? null,
        },
        senior,
      });
    }
  }
  for (const j of juniors) {
    const key = j.parentBasis === 'legacy' ? j.legacyParentKey : j.parentSessionId !== null ? String(j.parentSessionId) : null;
    if (key === null) continue;
    const parent = parentRows.get(key);
    if (!parent || parent.id >= j.id) continue;
    out.push({ edge: { seniorId: parent.id, juniorId: j.id, kind: 'spawn', basis: null, source: null, createdAt: null }, senior: parent });
  }
  out.sort((a, b) => a.edge.juniorId - b.edge.juniorId || a.senior.id - b.senior.id);
  return out;
}

/**
 * The uncle edges of each junior, for "also senior" chips and hidden-senior counts: one
 * query over the uncle table, with each uncle's owner (so a scoped caller's view can leave
 * out what it may not see) and no session rows.
 */
export async function uncleEdgesOf(
  db: Executor,
  juniorIds: readonly number[],
): Promise<{ edge: LineageEdge; seniorOwnerUserId: number | null }[]> {
  if (juniorIds.length === 0) return [];
  const rows = await db
    .selectFrom('session_uncles as u')
    .innerJoin('sessions as p', 'p.id', 'u.uncle_session_id')
    .select(['u.session_id', 'u.uncle_session_id', 'u.basis', 'u.source', 'u.created_at', 'p.owner_user_id'])
    .where('u.session_id', 'in', [...new Set(juniorIds)])
    .execute();
  return rows
    .map((r) => ({
      edge: {
        seniorId: Number(r.uncle_session_id),
        juniorId: Number(r.session_id),
        kind: 'uncle' as const,
        basis: r.basis as 'authenticated' | 'declared',
        source: r.source,
        createdAt: r.created_at,
      },
      seniorOwnerUserId: r.owner_user_id === null ? null : Number(r.owner_user_id),
    }))
    .sort((a, b) => a.edge.juniorId - b.edge.juniorId || a.edge.seniorId - b.edge.seniorId);
}

export type { Database };
