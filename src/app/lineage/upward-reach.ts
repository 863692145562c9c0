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
 * A closure's rows include one per legacy-key junior it meets: room for that many beyond the
 * budget, so an ancestry of exactly the budget with a legacy key in it is still decided whole.
 */
export const LEGACY_ROWS_ALLOWED = 100;

/**
 * Closures per ancestry. Each legacy key in series costs a round of two statements more; past this
 * many, a chain of them is answered by the levels, which pay one round trip per level however the
 * parents are named.
 */
export const CLOSURE_ROUNDS_ALLOWED = 4;

/**
 * The whole ancestry of `fromId` (itself included) over the edges `seniorIdsOf` reads, in a few
 * statements: a recursive closure, and where it meets sessions that name their parent by a
 * legacy key (parsed in JS), their seniors by `seniorIdsOf` — the one definition — and a closure
 * from those it had not reached. Null when it holds more than `budget` sessions, needs more than
 * `CLOSURE_ROUNDS_ALLOWED` closures, or the store has no closure statement. For PostgreSQL, where each level of the search is a round trip.
 */
export async function ancestryByClosures(
  db: Executor,
  d: StoreDialect,
  fromId: number,
  options: { spawnOnly: boolean; budget: number },
): Promise<Set<number> | null> {
  const ancestry = new Set<number>();
  const resolved = new Set<number>();
  let starts = [fromId];
  for (let round = 0; starts.length > 0; round++) {
    if (round === CLOSURE_ROUNDS_ALLOWED) return null;
    const closure = await upwardClosureOf(db, d, starts, { spawnOnly: options.spawnOnly, limit: options.budget + 1 + LEGACY_ROWS_ALLOWED });
    if (!closure || !closure.complete) return null;
    for (const id of closure.ids) ancestry.add(id);
    if (ancestry.size > options.budget) return null;
    const unresolved = closure.legacyJuniors.filter((id) => !resolved.has(id));
    for (const id of unresolved) resolved.add(id);
    const named = unresolved.length > 0 ? await seniorIdsOf(db, d, unresolved, { spawnOnly: options.spawnOnly }) : [];
    starts = named.filter((id) => !ancestry.has(id));
  }
  return ancestry;
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
    // Where the whole ancestry is known and within the budget, the level-by-level search could
    // not be exhausted, and the target is found iff it lies in it. A larger one (found or
    // exhausted depends on the levels), or the start as its own target, takes the search below.
    const ancestry = await ancestryByClosures(db, d, from.id, { spawnOnly, budget });
    if (ancestry) return ancestry.has(targetId) ? 'found' : 'not-found';
  }
  const { result } = await searchUpward<{ id: number }>({
    from: [{ id: from.id }],
    target: targetId,
    seniorsOf: (level) => seniorsOfLevel(db, d, level, spawnOnly),
    budget,
  });
  return result;
}
