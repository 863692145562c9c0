import {
  ownerVisible,
  sortInPlace,
  type JuniorsAnswer,
  type LineageRowRef,
  type SeniorsAnswer,
  type UnclesAnswer,
  type WalkAnswer,
  type WalkEdge,
  type WalkOutcome,
  type WalkRequest,
} from './hierarchy-types.js';

/** A junior as a `juniors` read returns it: the edge that reached it and its row. */
export type JuniorEntry<R> = { edge: WalkEdge; junior: R };

/** The order a juniors read returns its rows in: by junior id, then senior id, spawn before uncle. */
const byJuniorThenSenior = (a: JuniorEntry<LineageRowRef>, b: JuniorEntry<LineageRowRef>): number =>
  a.junior.id - b.junior.id || a.edge.seniorId - b.edge.seniorId || (a.edge.kind === b.edge.kind ? 0 : a.edge.kind < b.edge.kind ? -1 : 1);

/**
 * Answers a `juniors` read from adjacency lists that are complete for the ids they cover:
 * the `limit` lowest-id qualifying juniors, with every edge from the asked seniors to each.
 * The store answers the same read with one query; a loaded graph answers it from memory.
 */
export function answerJuniors<R extends LineageRowRef>(
  request: Extract<WalkRequest<R>, { type: 'juniors' }>,
  juniorsOf: (seniorId: number) => readonly JuniorEntry<R>[],
  unclesOf?: (juniorId: number) => UnclesAnswer | undefined,
): JuniorsAnswer<R> {
  // one flat list, sorted, then cut after the limit-th junior: no map or set per read (a live
  // refresh runs this for every level of every open view, and their hash tables were most of
  // its garbage)
  const excluded = request.exclude;
  const candidates: JuniorEntry<R>[] = [];
  const of = request.of;
  // a senior asked twice counts once; the walk asks in ascending id order, which has no repeats
  const ascendingIds = of.every((s, i) => i === 0 || of[i - 1]!.id < s.id);
  const asked = ascendingIds ? null : new Set<number>();
  for (const { id: senior } of of) {
    if (asked) {
      if (asked.has(senior)) continue;
      asked.add(senior);
    }
    for (const entry of juniorsOf(senior)) {
      const j = entry.junior;
      if (j.id <= request.afterId || excluded.has(j.id) || !ownerVisible(request.owners, j.ownerUserId)) continue;
      candidates.push(entry);
    }
  }
  sortInPlace(candidates, byJuniorThenSenior);
  const limit = Math.max(0, request.limit);
  const picked: number[] = [];
  let rowCount = 0;
  for (; rowCount < candidates.length; rowCount++) {
    const id = candidates[rowCount]!.junior.id;
    if (picked.length > 0 && picked[picked.length - 1] === id) continue;
    if (picked.length === limit) break;
    picked.push(id);
  }
  candidates.length = rowCount;
  const answer: JuniorsAnswer<R> = {
    rows: candidates,
    lastPickedId: picked.length > 0 ? picked[picked.length - 1]! : null,
    exhausted: picked.length < request.limit,
  };
  if (unclesOf) {
    const uncles: UnclesAnswer = [];
    for (const id of picked) {
      const known = unclesOf(id);
      if (!known) return answer; // not loaded for every picked junior: the walk reads chips itself
      uncles.push(...known);
    }
    answer.uncles = uncles;
  }
  return answer;
}

/**
 * A lineage graph held in memory, edges already resolved (by the store's `juniorsOf` /
 * `seniorsOf`, or by a test that builds one). It answers every read of the walk, so the
 * walk can run over it without a database.
 */
export class LineageGraph<R extends LineageRowRef> {
  private readonly rows = new Map<number, R>();
  private readonly down = new Map<number, JuniorEntry<R>[]>();
  private readonly up = new Map<number, { edge: WalkEdge; senior: R }[]>();

  constructor(rows: readonly R[], edges: readonly WalkEdge[]) {
    for (const r of rows) this.rows.set(r.id, r);
    for (const e of edges) {
      const senior = this.rows.get(e.seniorId);
      const junior = this.rows.get(e.juniorId);
      if (!senior || !junior) continue; // an edge with a missing end asserts nothing (docs/concepts.md)
      this.down.set(e.seniorId, [...(this.down.get(e.seniorId) ?? []), { edge: e, junior }]);
      this.up.set(e.juniorId, [...(this.up.get(e.juniorId) ?? []), { edge: e, senior }]);
    }
  }

  row(id: number): R | undefined {
    return this.rows.get(id);
  }

  answer(request: WalkRequest<R>): WalkAnswer<R> {
    switch (request.type) {
      case 'seniors':
        return request.of.flatMap((j) => this.up.get(j.id) ?? []) satisfies SeniorsAnswer<R>;
      case 'juniors':
        return answerJuniors(
          request,
          (id) => this.down.get(id) ?? [],
          (id) => this.unclesOf(id),
        );
      case 'uncles':
        return request.of.flatMap((j) => this.unclesOf(j)) satisfies UnclesAnswer;
    }
  }

  private unclesOf(juniorId: number): UnclesAnswer {
    return (this.up.get(juniorId) ?? [])
      .filter((u) => u.edge.kind === 'uncle')
      .map((u) => ({ juniorId, seniorId: u.senior.id, basis: u.edge.basis ?? 'declared', seniorOwnerUserId: u.senior.ownerUserId }));
  }
}

/** Runs a walk to completion with a synchronous answerer (an in-memory graph). */
export function runWalkSync<R extends LineageRowRef>(
  walk: Generator<WalkRequest<R>, WalkOutcome<R>, unknown>,
  answer: (request: WalkRequest<R>) => WalkAnswer<R>,
): WalkOutcome<R> {
  let step = walk.next();
  while (!step.done) step = walk.next(answer(step.value));
  return step.value;
}
