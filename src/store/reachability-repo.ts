import { sql } from 'kysely';
import { LEGACY_PARENT_KEY, parseLegacyParentKey } from '../core/legacy-parent-key.js';
import type { Executor, StoreDialect } from './dialect/dialect.js';

/*
 * What a reachability search reads per level: only ids. The edges are the ones `seniorsOf`
 * (lineage-repo.ts) resolves — a junior's lineage parent by column or legacy key, older than
 * the junior, and its uncles — read from the juniors' own rows and the uncle table, so no
 * senior's row is fetched or decoded (test/store/reachability-repo.test.ts holds the two equal).
 */

/** Junior `s` names its parent by a legacy key (parsed in JS, parseLegacyParentKey). */
const LEGACY_JUNIOR = sql.raw(`s.parent_basis = 'legacy'`);
/** Junior `s` has a lineage parent: by legacy key, or by column when older than it (as `seniorsOf` requires). */
const PARENT_EDGE = sql`(${LEGACY_JUNIOR} or s.parent_session_id < s.id)`;

/**
 * One row per distinct senior of the level's juniors: a spawn parent by column (older than its
 * junior, as `seniorsOf` requires), an uncle, or — for a junior that names its parent by a legacy
 * key — the junior with its key, resolved below. The id list is joined, not probed with `in`
 * (SQLite materialises an `in (subquery)` list on every run), and the union drops
 * repeats in SQL, so a level whose juniors share seniors returns each once: in the bench's
 * 5,000-session check the uncle-edge write's p50 went from 21.5 to 9.8 ms on SQLite
 * (bench/README.md).
 */
const seniorsSql = (d: StoreDialect, juniorIds: readonly number[], spawnOnly: boolean) => {
  const legacy = LEGACY_JUNIOR;
  const parents = sql`select case when ${legacy} then null else s.parent_session_id end as senior_id, case when ${legacy} then s.id end as junior_id, case when ${legacy} then ${sql.raw(d.jsonTextFieldSql('s.custom_metadata', LEGACY_PARENT_KEY))} end as legacy_parent_key from ${d.valueTable(juniorIds, 'bigint', 'id')} as j inner join sessions s on s.id = j.id where ${PARENT_EDGE}`;
  if (spawnOnly) return parents;
  return sql`${parents} union select u.uncle_session_id, null, null from ${d.valueTable(juniorIds, 'bigint', 'id')} as j inner join session_uncles u on u.session_id = j.id`;
};

/**
 * The distinct ids of the seniors of `juniorIds` (spawn parents only with `spawnOnly`): one
 * query for the level, and a second only when a junior names its parent by a legacy key.
 */
export async function seniorIdsOf(db: Executor, d: StoreDialect, juniorIds: readonly number[], options: { spawnOnly: boolean }): Promise<number[]> {
  if (juniorIds.length === 0) return [];
  const rows = (await seniorsSql(d, [...new Set(juniorIds)], options.spawnOnly).execute(db)).rows as {
    senior_id: unknown;
    junior_id: unknown;
    legacy_parent_key: string | null;
  }[];
  const out = new Set<number>();
  const legacy: { juniorId: number; ref: NonNullable<ReturnType<typeof parseLegacyParentKey>> }[] = [];
  for (const r of rows) {
    if (r.senior_id !== null) out.add(Number(r.senior_id));
    else if (r.junior_id !== null) {
      const ref = parseLegacyParentKey(r.legacy_parent_key);
      if (ref) legacy.push({ juniorId: Number(r.junior_id), ref });
    }
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

/**
 * The upward closure of `fromIds` in one statement: `fromIds` and the sessions above them over the
 * edges `seniorIdsOf` reads, at most `limit` ids, in no promised order. For PostgreSQL, where a
 * search's per-level statements are round trips: the bench's 5,000-session check was 20 of them
 * (about 28 ms on the bench machine), the recursive statement 11–30 ms (bench/README.md).
 * Written with LATERAL: null on a dialect without it (SQLite, whose statements cost no round
 * trip, so the per-level search stays there anyway).
 *
 * A junior naming its parent by a legacy key is not followed here (its key is parsed in JS, by
 * `seniorIdsOf`): it is returned in `legacyJuniors` (in SQL, as its id negated, which names no
 * session, so the recursion stops there), for the caller to resolve and continue from.
 * `complete`: fewer than `limit` rows came back, so nothing was cut off.
 */
export async function upwardClosureOf(
  db: Executor,
  d: StoreDialect,
  fromIds: readonly number[],
  options: { spawnOnly: boolean; limit: number },
): Promise<{ ids: number[]; legacyJuniors: number[]; complete: boolean } | null> {
  if (!d.capabilities.lateralJoins) return null;
  const uncles = options.spawnOnly ? sql`` : sql` union all select u.uncle_session_id from session_uncles u where u.session_id = r.id`;
  const rows = (
    await sql`with recursive reach(id) as (select cast(f.id as bigint) from ${d.valueTable(fromIds, 'bigint', 'id')} as f union select x.senior_id from reach r cross join lateral (select case when ${LEGACY_JUNIOR} then -s.id else s.parent_session_id end as senior_id from sessions s where s.id = r.id and ${PARENT_EDGE}${uncles}) as x) select id from reach limit ${options.limit}`.execute(
      db,
    )
  ).rows as { id: unknown }[];
  const ids: number[] = [];
  const legacyJuniors: number[] = [];
  for (const r of rows) {
    const id = Number(r.id);
    if (id < 0) legacyJuniors.push(-id);
    else ids.push(id);
  }
  return { ids, legacyJuniors, complete: rows.length < options.limit };
}
