/**
 * docs/concepts.md: every reachability search walks **upward** (from the prospective junior over its
 * seniors), breadth-first, one batch per level, and visits at most 5,000 sessions — the
 * budget bounds visited sessions, not depth.
 */
export const REACHABILITY_BUDGET = 5000;

/**
 * `found`: the target was reached; `not-found`: every senior above the start was visited and
 * the target is not among them (a proof); `exhausted`: the budget ran out first (no proof
 * either way).
 */
export type SearchResult = 'found' | 'not-found' | 'exhausted';

interface UpwardSearch<N extends { id: number }> {
  /** the sessions the walk starts from (counted as visited) */
  from: readonly N[];
  target: number;
  /** the seniors of a whole level at once (one batch per level) */
  seniorsOf: (level: readonly N[]) => Promise<readonly N[]>;
  budget?: number;
}

/**
 * Breadth-first over seniors until the target is found, the ancestry is exhausted, or the
 * budget of visited sessions runs out. The start itself is never "found": a search asks
 * whether the target lies strictly above it.
 * @example await searchUpward({from: [b], target: a.id, seniorsOf}) // 'found' when a ⇝ b going down
 */
export async function searchUpward<N extends { id: number }>(search: UpwardSearch<N>): Promise<{ result: SearchResult; visited: number }> {
  const budget = search.budget ?? REACHABILITY_BUDGET;
  const visited = new Set<number>(search.from.map((n) => n.id));
  let level: readonly N[] = search.from;
  while (level.length > 0) {
    const seniors = await search.seniorsOf(level);
    // the target anywhere in this level wins over the budget running out in it
    if (seniors.some((s) => s.id === search.target)) return { result: 'found', visited: visited.size };
    const next: N[] = [];
    for (const senior of seniors) {
      if (visited.has(senior.id)) continue;
      if (visited.size >= budget) return { result: 'exhausted', visited: visited.size };
      visited.add(senior.id);
      next.push(senior);
    }
    level = next;
  }
  return { result: 'not-found', visited: visited.size };
}
