import { sql, type RawBuilder } from 'kysely';
import type { Basis } from '../core/basis.js';
import type { Genesis, SchedulingClass } from '../core/genesis.js';
import type { SessionStatus } from '../core/lifecycle.js';
import type { Executor, StoreDialect } from './dialect/dialect.js';
import { LEGACY_PARENT_KEY, legacyParentKeyProbes, parseLegacyParentKey } from '../core/legacy-parent-key.js';
import { legacySqlOf } from './legacy-key-sql.js';

/**
 * docs/concepts.md: the only columns lineage reads.
 * Adding a field to a hierarchy node means adding it here.
 */
const HIERARCHY_COLUMNS = [
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
  /** read with the projection (an index probe), so a walk can skip asking for seniors it has not got */
  hasUncles?: boolean;
}

type EdgeKind = 'spawn' | 'uncle';

/** One edge as lineage reads it: the senior → junior pair and, for uncles, the edge's record. */
interface LineageEdge {
  seniorId: number;
  juniorId: number;
  kind: EdgeKind;
  /** uncle edges only */
  basis: 'authenticated' | 'declared' | null;
  source: string | null;
  createdAt: string | null;
}

type RawRow = Record<string, unknown>;

/*
 * The lineage queries are written as SQL templates rather than with the query builder: they
 * run once per level of every hierarchy read, and building a union of projections node by
 * node cost more than the database spent answering it (bench/lineage-bench.ts). The text is
 * the same on both dialects except the legacy-key expression, which the dialect supplies.
 */

// SQLite answers exists() with 0/1, PostgreSQL with a boolean
const hasUncleEdges = (r: RawRow): boolean => r.has_uncles === true || Number(r.has_uncles) === 1;

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
    // absent: not asked (unknown)
    ...(r.has_uncles === undefined ? {} : { hasUncles: hasUncleEdges(r) }),
  };
}

const projections = new WeakMap<StoreDialect, Map<string, RawBuilder<unknown>>>();

/**
 * `HIERARCHY_COLUMNS` of `alias`, plus the legacy key as text — extracted in SQL, and only
 * where the create accepted it (parent_basis = 'legacy'): the metadata blob itself is never
 * loaded, and parsing every row's would cost the walk for nothing — and whether the session
 * has uncles (so the walk can skip a seniors read at a true top).
 */
function projection(d: StoreDialect, alias: string, withHasUncles = true): RawBuilder<unknown> {
  let perDialect = projections.get(d);
  if (!perDialect) projections.set(d, (perDialect = new Map()));
  const key = `${alias}:${withHasUncles}`;
  let p = perDialect.get(key);
  if (!p) {
    const cols = HIERARCHY_COLUMNS.map((c) => `${alias}.${c} as ${c}`).join(', ');
    p = sql.raw(
      `${cols}, case when ${alias}.parent_basis = 'legacy' then ${d.jsonTextFieldSql(`${alias}.custom_metadata`, LEGACY_PARENT_KEY)} end as legacy_parent_key` +
        // a scalar probe, not exists(): a generic plan may run an exists() as one hashed scan of the whole uncle table
        (withHasUncles ? `, ((select 1 from session_uncles hu where hu.session_id = ${alias}.id limit 1) is not null) as has_uncles` : ''),
    );
    perDialect.set(key, p);
  }
  return p;
}

/** The same columns, null, for rows that carry only an edge (in a UNION with projection rows). */
const NULL_PROJECTION = sql.raw(
  [...HIERARCHY_COLUMNS.filter((c) => c !== 'id').map((c) => `null as ${c}`), 'null as legacy_parent_key', 'null as has_uncles'].join(', '),
);

/** `in ${ids(d, …)}`: one bound parameter per list (see StoreDialect.valueList). */
function idList(d: StoreDialect, values: readonly number[]): RawBuilder<unknown> {
  return d.valueList(values, 'bigint');
}

function textList(d: StoreDialect, values: readonly string[]): RawBuilder<unknown> {
  return d.valueList(values, 'text');
}

async function rowsOf(db: Executor, query: RawBuilder<unknown>): Promise<RawRow[]> {
  return (await query.execute(db)).rows as RawRow[];
}

export async function loadHierarchyRows(db: Executor, d: StoreDialect, ids: readonly number[]): Promise<HierarchyRow[]> {
  if (ids.length === 0) return [];
  const rows = await rowsOf(db, sql`select ${projection(d, 's')} from sessions s where s.id in ${idList(d, [...new Set(ids)])}`);
  return rows.map(toRow);
}

/** Restricts sessions `c` to the owners a scoped caller may see (docs/concepts.md); absent = all. */
function ownedBy(d: StoreDialect, visibleOwners: readonly (number | null)[] | undefined): RawBuilder<unknown> {
  if (!visibleOwners) return sql`1 = 1`;
  const owners = visibleOwners.filter((o): o is number => o !== null);
  const ors: RawBuilder<unknown>[] = [];
  if (owners.length > 0) ors.push(sql`c.owner_user_id in ${idList(d, owners)}`);
  if (visibleOwners.includes(null)) ors.push(sql`c.owner_user_id is null`);
  return ors.length > 0 ? sql`(${sql.join(ors, sql` or `)})` : sql`1 = 0`;
}

interface JuniorScope {
  ids: number[];
  idSet: Set<number>;
  /** what the legacy-key probe index is searched with (legacyParentKeyProbes of each senior) */
  probes: string[];
  uidToId: Map<string, number>;
}

function juniorScope(seniors: readonly Pick<HierarchyRow, 'id' | 'uid'>[]): JuniorScope {
  const ids: number[] = [];
  const idSet = new Set<number>();
  const uidToId = new Map<string, number>();
  const probes: string[] = [];
  for (const s of seniors) {
    if (idSet.has(s.id)) continue;
    ids.push(s.id);
    idSet.add(s.id);
    uidToId.set(s.uid, s.id);
    probes.push(...legacyParentKeyProbes(s));
  }
  return { ids, idSet, probes, uidToId };
}

/**
 * The scope's senior a legacy key names: the parser reads as a session exactly the keys in
 * its `legacyParentKeySpellings` (core/legacy-parent-key.ts), so parsing the few legacy keys a
 * page holds answers what matching each against every senior's spellings would. (Uids are
 * written lowercase and hyphenated, as the parser returns them.)
 */
function seniorNamedBy(key: string | null, scope: JuniorScope): number | undefined {
  const ref = parseLegacyParentKey(key);
  if (ref === null) return undefined;
  if (ref.kind === 'uid') return scope.uidToId.get(ref.uid);
  return scope.idSet.has(ref.id) ? ref.id : undefined;
}

/**
 * The junior's spawn parent when it is one of the scope's seniors: the column, or — only
 * when the create accepted it — the legacy key (id or uid). A spawn parent is always older.
 */
function spawnSeniorIn(junior: HierarchyRow, scope: JuniorScope): number | undefined {
  const seniorId = junior.parentBasis === 'legacy' ? seniorNamedBy(junior.legacyParentKey, scope) : (junior.parentSessionId ?? undefined);
  if (seniorId === undefined || !scope.idSet.has(seniorId) || seniorId >= junior.id) return undefined;
  return seniorId;
}

/**
 * Whether a picked row may be there only because its legacy key reduces to a senior's probe:
 * a legacy-basis row whose key is no spelling of any senior and that no uncle edge from the
 * scope reached. Rows written by the create never are; the check keeps the page exact anyway.
 */
function pickedByProbeAlone(rows: RawRow[], scope: JuniorScope): boolean {
  const reachedByUncle = new Set<number>();
  for (const r of rows) if (r.edge_kind === 'uncle' && scope.idSet.has(Number(r.edge_via))) reachedByUncle.add(Number(r.id));
  return rows.some(
    (r) =>
      r.edge_kind === 'row' &&
      r.parent_basis === 'legacy' &&
      typeof r.legacy_parent_key === 'string' &&
      seniorNamedBy(r.legacy_parent_key, scope) === undefined &&
      !reachedByUncle.has(Number(r.id)),
  );
}

/** Builds the sorted junior list from projection rows (spawn edges on the row) and uncle-edge rows. */
function resolveJuniors(rows: RawRow[], scope: JuniorScope): { edge: LineageEdge; junior: HierarchyRow }[] {
  const juniors = new Map<number, HierarchyRow>();
  for (const r of rows) if (r.edge_kind === 'row') juniors.set(Number(r.id), toRow(r));
  const out: { edge: LineageEdge; junior: HierarchyRow }[] = [];
  for (const junior of juniors.values()) {
    const seniorId = spawnSeniorIn(junior, scope);
    if (seniorId !== undefined) out.push({ edge: { seniorId, juniorId: junior.id, kind: 'spawn', basis: null, source: null, createdAt: null }, junior });
  }
  for (const r of rows) {
    if (r.edge_kind !== 'uncle' || !scope.idSet.has(Number(r.edge_via))) continue;
    const junior = juniors.get(Number(r.id));
    if (!junior) continue;
    out.push({
      edge: {
        seniorId: Number(r.edge_via),
        juniorId: junior.id,
        kind: 'uncle',
        basis: r.edge_basis as 'authenticated' | 'declared',
        source: r.edge_source as string,
        createdAt: r.edge_created_at as string,
      },
      junior,
    });
  }
  out.sort((a, b) => a.junior.id - b.junior.id || a.edge.seniorId - b.edge.seniorId || a.edge.kind.localeCompare(b.edge.kind));
  return out;
}

/**
 * Ids of the juniors of the scope over the three representations, each branch qualified (an id
 * may repeat: the callers dedupe, cheaper than a union that sorts every branch).
 * Without `exactKeys` the legacy branch matches on the probe alone: the same rows whenever every
 * legacy key is a spelling the parser accepts (what the create writes), and cheaper; a row it
 * finds that is no spelling of its senior shows in the answer (see `pickedByProbeAlone`).
 */
function juniorIdsSql(d: StoreDialect, scope: JuniorScope, qualifies: RawBuilder<unknown>, exactKeys: boolean): RawBuilder<unknown> {
  const legacy = legacySqlOf(d);
  return sql`select c.id as id from sessions c where c.parent_session_id in ${idList(d, scope.ids)} and c.id > c.parent_session_id and ${qualifies}
    union all select c.id as id from ${d.valueTable(scope.probes, 'text', 'probe')} as k inner join sessions c on ${legacy.probe} = k.probe
      where c.parent_basis = 'legacy' and ${exactKeys ? legacy.spelling : sql`1 = 1`} and ${qualifies}
    union all select c.id as id from session_uncles u inner join sessions c on c.id = u.session_id where u.uncle_session_id in ${idList(d, scope.ids)} and ${qualifies}`;
}

/**
 * Each session named by `picked` (a subquery of ids) once, as a projection row; `inEdgeShape`
 * adds the edge columns (constant for a row) that a union with edge rows needs.
 */
function pickedRowsSql(d: StoreDialect, picked: RawBuilder<unknown>, inEdgeShape: boolean): RawBuilder<unknown> {
  const edgeColumns = inEdgeShape
    ? sql`, 'row' as edge_kind, null as edge_via, null as edge_basis, null as edge_source, null as edge_created_at, null as edge_owner`
    : sql``;
  return sql`select ${projection(d, 'c')}${edgeColumns} from sessions c where c.id ${d.inRowsOf(picked)}`;
}

/**
 * Every uncle edge of each junior named by `picked`, with the uncle's owner, in the rows'
 * shape: those from the scope are edges of this level, the others are the chips the walk
 * would otherwise read separately.
 */
function uncleRowsSql(d: StoreDialect, picked: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`select u.session_id as id, ${NULL_PROJECTION}, 'uncle' as edge_kind, u.uncle_session_id as edge_via, u.basis as edge_basis, u.source as edge_source, u.created_at as edge_created_at, p.owner_user_id as edge_owner
      from session_uncles u inner join sessions p on p.id = u.uncle_session_id where u.session_id ${d.inRowsOf(picked)}`;
}

/** The juniors named by `picked`, each row once, and every uncle edge of each (`uncleRowsSql`). */
function juniorsOfPickedSql(d: StoreDialect, picked: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`${pickedRowsSql(d, picked, true)} union all ${uncleRowsSql(d, picked)}`;
}

/** Every uncle edge the rows of juniorsOfPickedSql carry, with the uncle's owner. */
function unclesOfRows(rows: RawRow[]): { edge: LineageEdge; seniorOwnerUserId: number | null }[] {
  return rows
    .filter((r) => r.edge_kind === 'uncle')
    .map((r) => ({
      edge: {
        seniorId: Number(r.edge_via),
        juniorId: Number(r.id),
        kind: 'uncle' as const,
        basis: r.edge_basis as 'authenticated' | 'declared',
        source: r.edge_source as string,
        createdAt: r.edge_created_at as string,
      },
      seniorOwnerUserId: r.edge_owner === null || r.edge_owner === undefined ? null : Number(r.edge_owner),
    }))
    .sort((a, b) => a.edge.juniorId - b.edge.juniorId || a.edge.seniorId - b.edge.seniorId);
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
  const picked = sql`(${juniorIdsSql(d, scope, sql`1 = 1`, true)})`;
  return resolveJuniors(await rowsOf(db, juniorsOfPickedSql(d, picked)), scope);
}

interface JuniorsPageOptions {
  /** only juniors with a larger id */
  afterId?: number;
  /** juniors never returned (sessions already placed) */
  exclude?: readonly number[];
  /** at most this many distinct juniors: the lowest ids */
  limit: number;
  /** only juniors of these owners (null = unowned); absent = every owner */
  visibleOwners?: readonly (number | null)[];
}

interface JuniorsPage {
  /** every edge from the given seniors to each picked junior, sorted by junior id */
  edges: { edge: LineageEdge; junior: HierarchyRow }[];
  /** the highest junior id picked; the next page starts after it */
  lastPickedId: number | null;
  /** fewer than `limit` juniors qualified */
  exhausted: boolean;
  /** every uncle edge of each picked junior, from any senior (for "also senior" chips) */
  uncles: { edge: LineageEdge; seniorOwnerUserId: number | null }[];
}

/**
 * juniorsOf, one page: the `limit` lowest-id juniors of `seniors` (above `afterId`, not
 * excluded, visible) with all their edges from `seniors` — one statement, and a second for
 * the uncle edges only when a picked junior has any, so a router with thousands of children
 * costs the walk a page, not the whole fan-out (docs/operations.md: the read
 * depends on the hierarchy shown, not on the fleet).
 */
export async function juniorsPageOf(
  db: Executor,
  d: StoreDialect,
  seniors: readonly Pick<HierarchyRow, 'id' | 'uid'>[],
  options: JuniorsPageOptions,
): Promise<JuniorsPage> {
  if (seniors.length === 0 || options.limit <= 0) return { edges: [], lastPickedId: null, exhausted: true, uncles: [] };
  const scope = juniorScope(seniors);
  const exclude = new Set(options.exclude ?? []);
  // (no `c.id > 0` on a first page: PostgreSQL would answer it with a scan of the whole key index)
  const after = options.afterId ?? 0;
  // the id bound narrows each branch's index range
  const qualifies = sql.join([ownedBy(d, options.visibleOwners), ...(after > 0 ? [sql`c.id > ${after}`] : [])], sql` and `);
  // the lowest `limit` ids outside `exclude` are among the lowest `limit + |exclude|` ids: the
  // exclusion is applied here, not in SQL, where SQLite pushes it into every branch and sorts each
  const wanted = options.limit + exclude.size;
  const pick = async (exactKeys: boolean) => {
    // the rows by the pick as a subquery, in one statement: with the pick as a CTE that the rows
    // and the uncle edges both read, SQLite spent about twice as long (bench/README.md)
    const picked = sql`(select distinct id from (${juniorIdsSql(d, scope, qualifies, exactKeys)}) as j order by id limit ${wanted})`;
    const rows = (await rowsOf(db, pickedRowsSql(d, picked, false))).filter((r) => !exclude.has(Number(r.id)));
    rows.sort((x, y) => Number(x.id) - Number(y.id));
    rows.length = Math.min(rows.length, options.limit);
    // the row's constant column set here, not selected: each column read costs a value per row
    // (the six null edge columns and this one were a quarter of the statement on SQLite)
    for (const r of rows) r.edge_kind = 'row';
    // uncle edges only for the juniors whose row says they have any: most pages need no second statement
    const withUncles = rows.filter(hasUncleEdges).map((r) => Number(r.id));
    if (withUncles.length > 0) rows.push(...(await rowsOf(db, uncleRowsSql(d, idList(d, withUncles)))));
    return { ids: rows.filter((r) => r.edge_kind === 'row').map((r) => Number(r.id)), rows };
  };
  let page = await pick(false);
  // a key that only looks like a spelling took a place on the page: pick again, exactly
  if (pickedByProbeAlone(page.rows, scope)) page = await pick(true);
  const { ids, rows } = page;
  if (ids.length === 0) return { edges: [], lastPickedId: null, exhausted: true, uncles: [] };
  return { edges: resolveJuniors(rows, scope), lastPickedId: ids[ids.length - 1]!, exhausted: ids.length < options.limit, uncles: unclesOfRows(rows) };
}

/**
 * seniorsOf — the mirror of juniorsOf: each junior's lineage parent (column or legacy key)
 * and its uncles, in one query for the whole batch.
 */
export async function seniorsOf(
  db: Executor,
  d: StoreDialect,
  juniors: readonly Pick<HierarchyRow, 'id' | 'parentSessionId' | 'parentBasis' | 'legacyParentKey'>[],
  /**
   * reachability searches always ask for the next level's seniors, so they skip the per-row
   * "has uncles" probe the walk uses to stop at a true top (the rows' `hasUncles` is unknown)
   */
  options: { withHasUncles?: boolean } = {},
): Promise<{ edge: LineageEdge; senior: HierarchyRow }[]> {
  const withHasUncles = options.withHasUncles ?? true;
  if (juniors.length === 0) return [];
  const parentIds = new Set<number>();
  const legacyUids = new Set<string>();
  for (const j of juniors) {
    if (j.parentBasis === 'legacy') {
      const ref = parseLegacyParentKey(j.legacyParentKey);
      if (ref?.kind === 'id') parentIds.add(ref.id);
      else if (ref?.kind === 'uid') legacyUids.add(ref.uid);
    } else if (j.parentSessionId !== null) parentIds.add(j.parentSessionId);
  }
  const juniorIds = [...new Set(juniors.map((j) => j.id))];
  // one select per key kind, never `id in … or uid in …`: PostgreSQL plans that OR of two
  // list subqueries as a full scan of sessions (450 ms at 100,000 sessions), not two index reads
  const byKey: RawBuilder<unknown>[] = [];
  if (parentIds.size > 0) byKey.push(sql`p.id in ${idList(d, [...parentIds])}`);
  if (legacyUids.size > 0) byKey.push(sql`p.uid in ${textList(d, [...legacyUids])}`);
  const spawnColumns = sql`${projection(d, 'p', withHasUncles)}, 'spawn' as edge_kind, p.id as edge_via, null as edge_basis, null as edge_source, null as edge_created_at`;
  const parents = byKey.map((where) => sql`select ${spawnColumns} from sessions p where ${where}`);
  const uncles = sql`select ${projection(d, 'p', withHasUncles)}, 'uncle' as edge_kind, u.session_id as edge_via, u.basis as edge_basis, u.source as edge_source, u.created_at as edge_created_at
    from session_uncles u inner join sessions p on p.id = u.uncle_session_id where u.session_id in ${idList(d, juniorIds)}`;
  const query = sql.join([...parents, uncles], sql` union all `);
  const rows = await rowsOf(db, query);
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
    const ref =
      j.parentBasis === 'legacy'
        ? parseLegacyParentKey(j.legacyParentKey)
        : j.parentSessionId !== null
          ? ({ kind: 'id', id: j.parentSessionId } as const)
          : null;
    if (ref === null) continue;
    const key = ref.kind === 'id' ? String(ref.id) : ref.uid;
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
  d: StoreDialect,
  juniorIds: readonly number[],
): Promise<{ edge: LineageEdge; seniorOwnerUserId: number | null }[]> {
  if (juniorIds.length === 0) return [];
  const rows = await rowsOf(
    db,
    sql`select u.session_id, u.uncle_session_id, u.basis, u.source, u.created_at, p.owner_user_id
      from session_uncles u inner join sessions p on p.id = u.uncle_session_id where u.session_id in ${idList(d, [...new Set(juniorIds)])}`,
  );
  return rows
    .map((r) => ({
      edge: {
        seniorId: Number(r.uncle_session_id),
        juniorId: Number(r.session_id),
        kind: 'uncle' as const,
        basis: r.basis as 'authenticated' | 'declared',
        source: r.source as string,
        createdAt: r.created_at as string,
      },
      seniorOwnerUserId: r.owner_user_id === null ? null : Number(r.owner_user_id),
    }))
    .sort((a, b) => a.edge.juniorId - b.edge.juniorId || a.edge.seniorId - b.edge.seniorId);
}
