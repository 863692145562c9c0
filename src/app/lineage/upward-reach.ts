import { REACHABILITY_BUDGET, searchUpward, type SearchResult } from '../../core/upward-search.js';
import type { Executor, StoreDialect } from '../../store/dialect/dialect.js';
import { seniorIdsOf, upwardClosureOf } from '../../store/reachability-repo.js';

/** One batch per level; a wide level is split so no statement carries too many parameters. */
const LEVEL_CHUNK = 1000;

async function seniorsOfLevel(db: Executor, d: StoreDialect, level: readonly { id: number }[], spawnOnly: boolean): Promise<{ id: number }[]> {
  const out: { id: number }[] = [];
  for (let i = 0; i < level.length; i += LEVEL_CHUNK) {
    const ids = await seniorIdsOf(
      db,
      d,
      level.slice(i, i + LEVEL_CHUNK).map((n) => n.id),
      { spawnOnly },
    );
    for (const id of ids) out.push({ id });
  }
  return out;
}

/**
 * docs/concepts.md: does `target` lie above `from` — is `from` reachable from `target` going down?
 * Walks upward over seniors (lineage parent and uncles: the edges `seniorsOf` resolves, read as
 * ids only), each search bounded by the 5,000-session budget.
 */
export async function reachesFromAbove(
  db: Executor,
  d: StoreDialect,
  from: { id: number },
  targetId: number,
  options: { spawnOnly?: boolean; budget?: number } = {},
): Promise<SearchResult> {
  const spawnOnly = options.spawnOnly ?? false;
  const budget = options.budget ?? REACHABILITY_BUDGET;
  // spawn parents are always older: a younger session is never a spawn ancestor
  if (spawnOnly && targetId > from.id) return 'not-found';
  if (!d.capabilities.localStatements && targetId !== from.id) {
    // One statement for the whole ancestry where it decides exactly what the level-by-level
    // search would: an ancestry of at most `budget` sessions is never exhausted, and the target
    // is found iff it lies in it. A larger one (found or exhausted depends on the levels), one
    // passing a legacy key, or the start as its own target takes the search below.
    const closure = await upwardClosureOf(db, d, from.id, { spawnOnly, limit: budget + 1 });
    if (closure && !closure.legacy && closure.ids.length <= budget) return closure.ids.includes(targetId) ? 'found' : 'not-found';
  }
  const { result } = await searchUpward<{ id: number }>({
    from: [{ id: from.id }],
    target: targetId,
    seniorsOf: (level) => seniorsOfLevel(db, d, level, spawnOnly),
    budget,
  });
  return result;
}
