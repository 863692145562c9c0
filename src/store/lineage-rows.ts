import { sql, type RawBuilder } from 'kysely';
import type { Basis } from '../core/basis.js';
import type { Genesis, SchedulingClass } from '../core/genesis.js';
import type { SessionStatus } from '../core/lifecycle.js';
import type { Executor, StoreDialect } from './dialect/dialect.js';
import { LEGACY_PARENT_KEY } from '../core/legacy-parent-key.js';

/** The lineage reads' shared parts: the columns they read, the projection, the row decoding and the list parameters (lineage-repo.ts, lineage-juniors-repo.ts). */

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
export interface LineageEdge {
  seniorId: number;
  juniorId: number;
  kind: EdgeKind;
  /** uncle edges only */
  basis: 'authenticated' | 'declared' | null;
  source: string | null;
  createdAt: string | null;
}

export type RawRow = Record<string, unknown>;

/*
 * The lineage queries are written as SQL templates rather than with the query builder: they
 * run once per level of every hierarchy read, and building a union of projections node by
 * node cost more than the database spent answering it (bench/lineage-bench.ts). The text is
 * the same on both dialects except the legacy-key expression, which the dialect supplies.
 */

// SQLite answers exists() with 0/1, PostgreSQL with a boolean
export const hasUncleEdges = (r: RawRow): boolean => r.has_uncles === true || Number(r.has_uncles) === 1;

export function toRow(r: RawRow): HierarchyRow {
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
export function projection(d: StoreDialect, alias: string, withHasUncles = true): RawBuilder<unknown> {
  let perDialect = projections.get(d);
  if (!perDialect) projections.set(d, (perDialect = new Map<string, RawBuilder<unknown>>()));
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
export const NULL_PROJECTION = sql.raw(
  [...HIERARCHY_COLUMNS.filter((c) => c !== 'id').map((c) => `null as ${c}`), 'null as legacy_parent_key', 'null as has_uncles'].join(', '),
);

/** `in ${ids(d, …)}`: one bound parameter per list (see StoreDialect.valueList). */
export function idList(d: StoreDialect, values: readonly number[]): RawBuilder<unknown> {
  return d.valueList(values, 'bigint');
}

export function textList(d: StoreDialect, values: readonly string[]): RawBuilder<unknown> {
  return d.valueList(values, 'text');
}

export async function rowsOf(db: Executor, query: RawBuilder<unknown>): Promise<RawRow[]> {
  return (await query.execute(db)).rows as RawRow[];
}

/** Restricts sessions `c` to the owners a scoped caller may see (docs/concepts.md); absent = all. */
export function ownedBy(d: StoreDialect, visibleOwners: readonly (number | null)[] | undefined): RawBuilder<unknown> {
  if (!visibleOwners) return sql`1 = 1`;
  const owners = visibleOwners.filter((o): o is number => o !== null);
  const ors: RawBuilder<unknown>[] = [];
  if (owners.length > 0) ors.push(sql`c.owner_user_id in ${idList(d, owners)}`);
  if (visibleOwners.includes(null)) ors.push(sql`c.owner_user_id is null`);
  return ors.length > 0 ? sql`(${sql.join(ors, sql` or `)})` : sql`1 = 0`;
}
