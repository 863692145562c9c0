import { sql, type RawBuilder } from 'kysely';
import type { Executor, StoreDialect } from './dialect/dialect.js';
import { legacyParentKeyProbes, parseLegacyParentKey } from '../core/legacy-parent-key.js';
import { legacySqlOf } from './legacy-key-sql.js';
import {
  hasUncleEdges,
  idList,
  NULL_PROJECTION,
  ownedBy,
  projection,
  rowsOf,
  toRow,
  type HierarchyRow,
  type LineageEdge,
  type RawRow,
} from './lineage-rows.js';

/** juniorsOf and its page (docs/concepts.md): the juniors of a batch of seniors over the three representations of an edge. */

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

/**
 * On an embedded store: the page's rows picked here — every candidate's row read unsorted, then
 * the `limit` lowest ids outside `exclude` kept — or null when the candidates outnumber a bound
 * (a router's fan-out), and the engine's top-N sort picks instead. On SQLite the one-statement
 * pick (`distinct … order by id limit`) spent more in its sorter than in the three index searches
 * it sorts (bench/README.md), and there is no round trip to save by sorting in the engine.
 * The bound is a literal: bound as a parameter, or put on a subquery, it made the statement
 * three to four times slower. `cross join` keeps the candidates the outer loop, so each row is
 * one primary-key search.
 */
async function pageRowsPickedHere(
  db: Executor,
  d: StoreDialect,
  candidates: RawBuilder<unknown>,
  exclude: ReadonlySet<number>,
  limit: number,
): Promise<RawRow[] | null> {
  const bound = candidateBound(limit + exclude.size);
  const found = await rowsOf(db, sql`select ${projection(d, 'c')} from (${candidates}) as j cross join sessions c on c.id = j.id limit ${sql.lit(bound + 1)}`);
  return found.length > bound ? null : lowestOutside(found, exclude, limit);
}

/** The `limit` lowest-id rows outside `exclude`, each id once (a junior reached by two representations comes once per representation). */
function lowestOutside(found: readonly RawRow[], exclude: ReadonlySet<number>, limit: number): RawRow[] {
  const byId = new Map<number, RawRow>();
  for (const r of found) {
    const id = Number(r.id);
    if (!exclude.has(id)) byId.set(id, r);
  }
  const rows = [...byId.values()].sort((x, y) => Number(x.id) - Number(y.id));
  rows.length = Math.min(rows.length, limit);
  return rows;
}

/** Twice what a page wants, at least 256, as a power of two: a few statement texts, and rows read here stay within twice the page. */
function candidateBound(wanted: number): number {
  let bound = 256;
  while (bound < 2 * wanted) bound *= 2;
  return bound;
}

/**
 * The page's rows picked by the engine: the lowest `limit` ids outside `exclude` are among the
 * lowest `limit + |exclude|` candidate ids, so those are picked, their rows read, the excluded dropped.
 */
async function enginePickedRows(
  db: Executor,
  d: StoreDialect,
  candidates: RawBuilder<unknown>,
  exclude: ReadonlySet<number>,
  limit: number,
): Promise<RawRow[]> {
  // the rows by the pick as a subquery, in one statement: with the pick as a CTE that the rows
  // and the uncle edges both read, SQLite spent about twice as long (bench/README.md)
  const picked = sql`(select distinct id from (${candidates}) as j order by id limit ${limit + exclude.size})`;
  return lowestOutside(await rowsOf(db, pickedRowsSql(d, picked, false)), exclude, limit);
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
  // the exclusion is applied here, not in SQL, where SQLite pushes it into every branch and sorts each
  const pick = async (exactKeys: boolean) => {
    const candidates = juniorIdsSql(d, scope, qualifies, exactKeys);
    const rows =
      (d.capabilities.localStatements ? await pageRowsPickedHere(db, d, candidates, exclude, options.limit) : null) ??
      (await enginePickedRows(db, d, candidates, exclude, options.limit));
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
