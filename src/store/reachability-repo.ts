import { sql } from 'kysely';
import { LEGACY_PARENT_KEY, parseLegacyParentKey } from '../core/legacy-parent-key.js';
import type { Executor, StoreDialect } from './dialect/dialect.js';

/*
 * What a reachability search reads per level: only ids. The edges are the ones `seniorsOf`
 * (lineage-repo.ts) resolves — a junior's lineage parent by column or legacy key, older than
 * the junior, and its uncles — read from the juniors' own rows and the uncle table, so no
 * senior's row is fetched or decoded (test/store/reachability-repo.test.ts holds the two equal).
 */

const parentsSql = (d: StoreDialect) =>
  sql.raw(
    `select s.id as junior_id, s.parent_session_id as senior_id, s.parent_basis as parent_basis, ` +
      `case when s.parent_basis = 'legacy' then ${d.jsonTextFieldSql('s.custom_metadata', LEGACY_PARENT_KEY)} end as legacy_parent_key, 'spawn' as kind from sessions s where s.id in `,
  );

/**
 * The distinct ids of the seniors of `juniorIds` (spawn parents only with `spawnOnly`): one
 * query for the level, and a second only when a junior names its parent by a legacy key.
 */
export async function seniorIdsOf(db: Executor, d: StoreDialect, juniorIds: readonly number[], options: { spawnOnly: boolean }): Promise<number[]> {
  if (juniorIds.length === 0) return [];
  const list = d.valueList([...new Set(juniorIds)], 'bigint');
  const parents = sql`${parentsSql(d)}${list}`;
  const query = options.spawnOnly
    ? parents
    : sql`${parents} union all select u.session_id as junior_id, u.uncle_session_id as senior_id, null as parent_basis, null as legacy_parent_key, 'uncle' as kind from session_uncles u where u.session_id in ${list}`;
  const rows = (await query.execute(db)).rows as {
    junior_id: unknown;
    senior_id: unknown;
    parent_basis: string | null;
    legacy_parent_key: string | null;
    kind: string;
  }[];
  const out = new Set<number>();
  const legacy: { juniorId: number; ref: NonNullable<ReturnType<typeof parseLegacyParentKey>> }[] = [];
  for (const r of rows) {
    const juniorId = Number(r.junior_id);
    if (r.kind === 'uncle') out.add(Number(r.senior_id));
    else if (r.parent_basis === 'legacy') {
      const ref = parseLegacyParentKey(r.legacy_parent_key);
      if (ref) legacy.push({ juniorId, ref });
    } else if (r.senior_id !== null && Number(r.senior_id) < juniorId) out.add(Number(r.senior_id));
  }
  if (legacy.length > 0) {
    // a legacy key may name a session that does not exist (or is younger): only existing, older ones are parents
    const ids = [...new Set(legacy.flatMap((l) => (l.ref.kind === 'id' ? [l.ref.id] : [])))];
    const uids = [...new Set(legacy.flatMap((l) => (l.ref.kind === 'uid' ? [l.ref.uid] : [])))];
    // one select per key kind: an OR of two list subqueries is a full scan on PostgreSQL (see seniorsOf)
    const by = [...(ids.length > 0 ? [sql`id in ${d.valueList(ids, 'bigint')}`] : []), ...(uids.length > 0 ? [sql`uid in ${d.valueList(uids, 'text')}`] : [])];
    const selects = by.map((where) => sql`select id, uid from sessions where ${where}`);
    const found = (await sql.join(selects, sql` union all `).execute(db)).rows as { id: unknown; uid: string }[];
    const byKey = new Map<string, number>();
    for (const f of found) {
      byKey.set(String(Number(f.id)), Number(f.id));
      byKey.set(f.uid, Number(f.id));
    }
    for (const l of legacy) {
      const parent = byKey.get(l.ref.kind === 'id' ? String(l.ref.id) : l.ref.uid);
      if (parent !== undefined && parent < l.juniorId) out.add(parent);
    }
  }
  return [...out];
}
