import { sql } from 'kysely';
import { compiledOnce } from './compiled-once.js';
import type { Executor, StoreDialect } from './dialect/dialect.js';

/**
 * How many version rows the session ids are spread over (id mod this). A change bumps the
 * buckets of the sessions it touched; a cached walk checks the buckets of the sessions it
 * read — one primary-key read of a few hundred two-integer rows at most.
 */
export const LINEAGE_VERSION_BUCKETS = 4096;

export function lineageBucketOf(sessionId: number): number {
  return sessionId % LINEAGE_VERSION_BUCKETS;
}

// a write that touches lineage bumps, every provenance read sums: both compiled once (compiled-once.ts)
const bumpBuckets = compiledOnce(
  (_db, p: { buckets: readonly number[]; ids: readonly number[] }, d) =>
    sql`update lineage_versions set version = version + 1 where bucket in ${d.valueList(p.buckets, 'bigint')}
      or bucket in (select u.uncle_session_id % ${LINEAGE_VERSION_BUCKETS} from session_uncles u where u.session_id in ${d.valueList(p.ids, 'bigint')})`,
);

/**
 * Bumps the version of every bucket holding one of `sessionIds` or an uncle of one of them
 * (a session's owner decides whether its seniors' walks may show it). One statement, so two
 * transactions lock the rows in the same (index) order and cannot deadlock on them.
 */
export async function bumpLineageVersions(tx: Executor, _d: StoreDialect, sessionIds: readonly number[]): Promise<void> {
  if (sessionIds.length === 0) return;
  const ids = [...new Set(sessionIds)];
  await bumpBuckets(tx, { buckets: [...new Set(ids.map(lineageBucketOf))], ids });
}

const versionSum = compiledOnce(
  (_db, p: { buckets: readonly number[] }, d) =>
    sql<{ total: number | string | null }>`select sum(version) as total from lineage_versions where bucket in ${d.valueList(p.buckets, 'bigint')}`,
);

/**
 * The sum of the buckets' versions: one row, however many buckets. Versions only ever grow
 * (bumpLineageVersions is the one writer), so over the same buckets an equal sum means no
 * bucket changed — what a cached walk needs to know, without reading every version.
 */
export async function lineageVersionSum(db: Executor, _d: StoreDialect, buckets: readonly number[]): Promise<number> {
  if (buckets.length === 0) return 0;
  const [row] = await versionSum(db, { buckets });
  return Number(row?.total ?? 0);
}
