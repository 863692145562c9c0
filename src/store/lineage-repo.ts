import { sql, type RawBuilder } from 'kysely';
import type { Executor, StoreDialect } from './dialect/dialect.js';
import { spawnParentRef } from '../core/legacy-parent-key.js';
import { idList, projection, rowsOf, textList, toRow, type HierarchyRow, type LineageEdge } from './lineage-rows.js';

export type { HierarchyRow } from './lineage-rows.js';

export async function loadHierarchyRows(db: Executor, d: StoreDialect, ids: readonly number[]): Promise<HierarchyRow[]> {
  if (ids.length === 0) return [];
  const rows = await rowsOf(db, sql`select ${projection(d, 's')} from sessions s where s.id in ${idList(d, [...new Set(ids)])}`);
  return rows.map(toRow);
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
    const ref = spawnParentRef(j);
    if (ref?.kind === 'id') parentIds.add(ref.id);
    else if (ref?.kind === 'uid') legacyUids.add(ref.uid);
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
    const ref = spawnParentRef(j);
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
