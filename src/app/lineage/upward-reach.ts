import { searchUpward, type SearchResult } from '../../core/upward-search.js';
import type { Executor, StoreDialect } from '../../store/dialect/dialect.js';
import { seniorsOf, type HierarchyRow } from '../../store/lineage-repo.js';

/** One batch per level; a wide level is split so no statement carries too many parameters. */
const LEVEL_CHUNK = 1000;

async function seniorsOfLevel(db: Executor, d: StoreDialect, level: readonly HierarchyRow[], spawnOnly: boolean): Promise<HierarchyRow[]> {
  const out: HierarchyRow[] = [];
  for (let i = 0; i < level.length; i += LEVEL_CHUNK) {
    const edges = await seniorsOf(db, d, level.slice(i, i + LEVEL_CHUNK), { withHasUncles: false });
    for (const { edge, senior } of edges) if (!spawnOnly || edge.kind === 'spawn') out.push(senior);
  }
  return out;
}

/**
 * docs/concepts.md: does `target` lie above `from` — is `from` reachable from `target` going down?
 * Walks upward over seniors (lineage parent and uncles, resolved by `seniorsOf` only), each
 * search bounded by the 5,000-session budget.
 */
export async function reachesFromAbove(
  db: Executor,
  d: StoreDialect,
  from: HierarchyRow,
  targetId: number,
  options: { spawnOnly?: boolean; budget?: number } = {},
): Promise<SearchResult> {
  const spawnOnly = options.spawnOnly ?? false;
  // spawn parents are always older: a younger session is never a spawn ancestor
  if (spawnOnly && targetId > from.id) return 'not-found';
  const { result } = await searchUpward<HierarchyRow>({
    from: [from],
    target: targetId,
    seniorsOf: (level) => seniorsOfLevel(db, d, level, spawnOnly),
    ...(options.budget !== undefined ? { budget: options.budget } : {}),
  });
  return result;
}
