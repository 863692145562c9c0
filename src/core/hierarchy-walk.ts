import { layoutHierarchy, type Discovery } from './hierarchy-layout.js';
import {
  DEFAULT_BOUNDS,
  ascending,
  ownerVisible,
  sortInPlace,
  type JuniorsAnswer,
  type LineageRowRef,
  type OwnerFilter,
  type SeniorsAnswer,
  type UnclesAnswer,
  type WalkBounds,
  type WalkEdge,
  type WalkOutcome,
  type WalkRequest,
} from './hierarchy-types.js';

const byId = (a: { id: number }, b: { id: number }): number => a.id - b.id;

/**
 * `hierarchyOf(S)` (docs/concepts.md) as a generator: it yields the batched
 * reads it needs (one per level per direction, plus one for uncle chips) and a driver
 * answers them — from the store for a request, or from a graph loaded once for a live
 * refresh fan-out. The same algorithm either way, so both give the same result.
 *
 * @example
 *   const gen = walkHierarchy(row, 'all');
 *   let step = gen.next();
 *   while (!step.done) step = gen.next(answer(step.value));
 *   step.value.nodes // in output order
 */
export function* walkHierarchy<R extends LineageRowRef>(
  current: R,
  owners: OwnerFilter,
  bounds: WalkBounds = DEFAULT_BOUNDS,
): Generator<WalkRequest<R>, WalkOutcome<R>, unknown> {
  const visible = (owner: number | null): boolean => ownerVisible(owners, owner);
  const footprint = new Set<number>([current.id]);
  const rows = new Map<number, R>([[current.id, current]]);

  // 1. Upward: breadth-first over seniors, at most maxDepth levels; the seniors of the
  //    last level are read too, to tell a true top from one the bound stopped at.
  const dist = new Map<number, number>([[current.id, 0]]);
  const seniorEdges = new Map<number, WalkEdge[]>();
  let level: R[] = [current];
  /** false once the depth bound left out a senior of an upward node */
  let upwardComplete = true;
  for (let k = 0; level.length > 0 && k <= bounds.maxDepth; k++) {
    for (const j of level) seniorEdges.set(j.id, []);
    // a row that names no parent and is known to have no uncle has no senior: no read for it
    const askable = level.filter((r) => r.parentSessionId !== null || (r.parentBasis === 'legacy' && r.legacyParentKey !== null) || r.hasUncles !== false);
    const answer = askable.length > 0 ? ((yield { type: 'seniors', of: askable }) as SeniorsAnswer<R>) : [];
    const next: R[] = [];
    for (const { edge, senior } of answer) {
      footprint.add(senior.id);
      const list = seniorEdges.get(edge.juniorId);
      if (!list || !visible(senior.ownerUserId)) continue;
      if (list.some((e) => e.seniorId === edge.seniorId && e.kind === edge.kind)) continue;
      list.push(edge);
      if (dist.has(senior.id)) continue;
      if (k < bounds.maxDepth) {
        dist.set(senior.id, k + 1);
        rows.set(senior.id, senior);
        next.push(senior);
      } else upwardComplete = false;
    }
    level = sortInPlace(next, byId);
  }
  const upward = new Set(dist.keys());

  const originId = spawnOrigin(current.id, upward, seniorEdges);
  const { roots, depths: upDepth } = upwardRoots(upward, dist, seniorEdges, originId);

  // 2. Admission: the upward nodes first (top-down, lowest id first), then the downward
  //    walk level by level, lowest id first, until maxNodes.
  const depth = new Map<number, number>();
  const admitted: number[] = [];
  const admittedSet = new Set<number>();
  const byDepth = new Map<number, number[]>();
  // sessions a juniors read must not return again: the upward set and everything admitted —
  // the admitted set itself once every upward node is admitted (nearly always: one 150-entry
  // set fewer per walk, which a live refresh runs for every open view)
  let excluded: Set<number> | null = null;
  const admit = (id: number, d: number): void => {
    admitted.push(id);
    admittedSet.add(id);
    excluded?.add(id);
    depth.set(id, d);
    const level = byDepth.get(d);
    if (level) level.push(id);
    else byDepth.set(d, [id]);
  };
  const upwardOrder = [...upward].sort((a, b) => upDepth.get(a)! - upDepth.get(b)! || a - b);
  for (const id of upwardOrder) if (admitted.length < bounds.maxNodes) admit(id, upDepth.get(id)!);
  excluded = admitted.length === upward.size ? admittedSet : new Set<number>([...upward, ...admitted]);
  // S is always included (docs/concepts.md step 4): when the cap left it out it is appended last.
  const ceilingCurrent = !admittedSet.has(current.id);
  if (ceilingCurrent) depth.set(current.id, upDepth.get(current.id) ?? 0);
  const shown = (): number[] => (ceilingCurrent ? [...admitted, current.id] : admitted);
  // `truncated` is true exactly when a session of the hierarchy was left out (docs/concepts.md step 5)
  let truncated = upwardOrder.some((id) => id !== current.id && !admittedSet.has(id));

  /** each downward-admitted node's edges from the level above, and the uncle edges read with its juniors page (its chips) */
  const downEntries = new Map<number, JuniorFound<R>>();

  for (let d = 0; d < bounds.maxDepth; d++) {
    const frontier = [...(byDepth.get(d) ?? [])];
    if (ceilingCurrent && depth.get(current.id) === d) frontier.push(current.id);
    sortInPlace(frontier, ascending);
    if (frontier.length === 0) break;
    const remaining = bounds.maxNodes - admitted.length;
    if (remaining === 0 && truncated) break;
    const need = remaining + 1; // one more than fits tells whether something is left out
    const found = yield* newJuniors(
      frontier.map((id) => rows.get(id)!),
      excluded,
      need,
      owners,
      footprint,
    );
    const picked = sortInPlace([...found.keys()], ascending);
    for (const id of picked.slice(0, remaining)) {
      const entry = found.get(id)!;
      rows.set(id, entry.row);
      downEntries.set(id, entry);
      admit(id, d + 1);
    }
    if (picked.length > remaining) truncated = true;
  }

  // The upward bound: a senior of an upward node that the walk did not reach (and the
  // downward walk did not bring in) is an ancestor left out.
  const rendered = ceilingCurrent ? new Set(shown()) : admittedSet;
  if (!truncated) truncated = [...upward].some((id) => (seniorEdges.get(id) ?? []).some((e) => !rendered.has(e.seniorId)));
  // The downward bound: anything below the deepest admitted level is left out.
  if (!truncated) {
    const deep = sortInPlace(
      shown().filter((id) => depth.get(id)! >= bounds.maxDepth),
      ascending,
    );
    if (deep.length > 0) {
      const found = yield* newJuniors(
        deep.map((id) => rows.get(id)!),
        excluded,
        1,
        owners,
        footprint,
      );
      if (found.size > 0) truncated = true;
    }
  }

  // 3. Uncle chips: uncles of nodes whose seniors the upward walk did not read.
  const uncleEdges = new Map<number, { seniorId: number; basis: 'authenticated' | 'declared' }[]>();
  const addChips = (answer: UnclesAnswer): void => {
    for (const u of answer) {
      footprint.add(u.seniorId);
      if (!visible(u.seniorOwnerUserId)) continue;
      const list = uncleEdges.get(u.juniorId);
      if (list && !list.some((e) => e.seniorId === u.seniorId)) list.push({ seniorId: u.seniorId, basis: u.basis });
    }
  };
  for (const id of rendered) {
    const known = seniorEdges.get(id);
    if (known)
      uncleEdges.set(
        id,
        known.filter((e) => e.kind === 'uncle').map((e) => ({ seniorId: e.seniorId, basis: e.basis ?? 'declared' })),
      );
    else {
      const chips = downEntries.get(id)?.uncles;
      if (chips) {
        uncleEdges.set(id, []);
        addChips(chips);
      }
    }
  }
  const unknown = sortInPlace(
    [...rendered].filter((id) => !uncleEdges.has(id)),
    ascending,
  );
  if (unknown.length > 0) {
    for (const id of unknown) uncleEdges.set(id, []);
    addChips((yield { type: 'uncles', of: unknown }) as UnclesAnswer);
  }

  const discovery: Discovery<R> = {
    currentId: current.id,
    originId,
    rows,
    roots,
    depth,
    admitted,
    admittedSet,
    rendered,
    ceilingCurrent,
    seniorEdges,
    downEntries,
    uncleEdges,
  };
  return { ...layoutHierarchy(discovery), truncated, footprint, upward, upwardComplete };
}

/**
 * Roots (and every upward node's depth below them): the origin, always — walked from depth 0
 * even when it has uncle seniors, so sessions interrupting S from above never push S's own
 * spawn family below the depth bound — and the upward nodes none of whose seniors was
 * reached. A cycle (which writers never create, but a bound must not assume) can leave part
 * of the upward set unreachable from any root; then the farthest such node (lowest id on
 * ties) is made a root, until every upward node hangs from one.
 */
function upwardRoots(
  upward: Set<number>,
  dist: Map<number, number>,
  seniorEdges: Map<number, WalkEdge[]>,
  originId: number,
): { roots: number[]; depths: Map<number, number> } {
  const roots = [
    originId,
    ...[...upward].filter((id) => id !== originId && !(seniorEdges.get(id) ?? []).some((e) => upward.has(e.seniorId))).sort((a, b) => a - b),
  ];
  for (;;) {
    const depths = depthsWithin(upward, roots, seniorEdges);
    if (depths.size === upward.size) return { roots, depths };
    const orphans = [...upward].filter((id) => !depths.has(id));
    orphans.sort((a, b) => dist.get(b)! - dist.get(a)! || a - b);
    roots.push(orphans[0]!);
  }
}

/** Shortest distance from the roots over the edges among upward nodes (breadth-first). */
function depthsWithin(upward: Set<number>, roots: readonly number[], seniorEdges: Map<number, WalkEdge[]>): Map<number, number> {
  const juniors = new Map<number, number[]>();
  for (const id of upward) {
    for (const e of seniorEdges.get(id) ?? []) {
      if (!upward.has(e.seniorId)) continue;
      const list = juniors.get(e.seniorId) ?? [];
      list.push(id);
      juniors.set(e.seniorId, list);
    }
  }
  const out = new Map<number, number>();
  let level = [...new Set(roots)];
  for (const r of level) out.set(r, 0);
  for (let d = 1; level.length > 0; d++) {
    const next: number[] = [];
    for (const id of level) {
      for (const j of juniors.get(id) ?? []) {
        if (out.has(j)) continue;
        out.set(j, d);
        next.push(j);
      }
    }
    level = next;
  }
  return out;
}

/** The origin: the highest spawn ancestor reached, uncle edges ignored (docs/concepts.md). */
function spawnOrigin(currentId: number, upward: Set<number>, seniorEdges: Map<number, WalkEdge[]>): number {
  let id = currentId;
  const seen = new Set<number>([id]);
  for (;;) {
    const parent = (seniorEdges.get(id) ?? []).find((e) => e.kind === 'spawn');
    if (!parent || !upward.has(parent.seniorId) || seen.has(parent.seniorId)) return id;
    id = parent.seniorId;
    seen.add(id);
  }
}

/** "the page carried uncle edges, none for this junior", shared; frozen, so a push on it throws instead of leaking into other juniors */
const NO_UNCLES = Object.freeze([]) as unknown as UnclesAnswer;

/** A junior a juniors read found: its row, its edges from the asked seniors, its uncle edges when the page carried them. */
interface JuniorFound<R> {
  row: R;
  edges: WalkEdge[];
  uncles: UnclesAnswer | null;
}

/**
 * The lowest-id `need` juniors of `seniors` that are not excluded, with every edge from
 * `seniors` to each; pages only when a page held fewer usable juniors than it picked.
 */
function* newJuniors<R extends LineageRowRef>(
  seniors: R[],
  excluded: ReadonlySet<number>,
  need: number,
  owners: OwnerFilter,
  footprint: Set<number>,
): Generator<WalkRequest<R>, Map<number, JuniorFound<R>>, unknown> {
  // not copied: the walk admits into this set only after the read returns
  const exclude = excluded;
  const seniorIds = new Set(seniors.map((s) => s.id));
  const found = new Map<number, JuniorFound<R>>();
  let afterId = 0;
  for (;;) {
    const answer = (yield { type: 'juniors', of: seniors, exclude, afterId, limit: need - found.size, owners }) as JuniorsAnswer<R>;
    for (const { edge, junior } of answer.rows) {
      footprint.add(junior.id);
      if (exclude.has(junior.id) || !seniorIds.has(edge.seniorId) || !ownerVisible(owners, junior.ownerUserId)) continue;
      const entry = found.get(junior.id);
      if (entry === undefined) found.set(junior.id, { row: junior, edges: [edge], uncles: answer.uncles ? NO_UNCLES : null });
      else if (!entry.edges.some((e) => e.seniorId === edge.seniorId && e.kind === edge.kind)) entry.edges.push(edge);
    }
    for (const u of answer.uncles ?? []) {
      const entry = found.get(u.juniorId);
      if (!entry?.uncles) continue;
      // the shared empty list is replaced on the first edge: most juniors have none
      if (entry.uncles === NO_UNCLES) entry.uncles = [u];
      else entry.uncles.push(u);
    }
    if (answer.exhausted || answer.lastPickedId === null || found.size >= need) return found;
    afterId = answer.lastPickedId;
  }
}
