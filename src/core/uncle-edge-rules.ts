import type { SearchResult } from './upward-search.js';

/**
 * docs/concepts.md: when session A queues or interrupts session B, the rules below
 * decide, in order, whether A → B is recorded. The decision is pure: it asks for the facts
 * it needs one at a time (each one a store search the caller runs), so cheap rules settle
 * the common cases before any expensive search, and the same function can be driven by an
 * in-memory graph in property tests.
 */

/** The entry points that may write an uncle edge (docs/concepts.md). */
export const UNCLE_SOURCES = [
  'mcp.follow_up',
  'mcp.enqueue',
  'mcp.send_now',
  'mcp.interrupt',
  'rest.follow_up',
  'rest.enqueue',
  'rest.send_now',
  'rest.interrupt',
] as const;
export type UncleSource = (typeof UNCLE_SOURCES)[number];

export type UncleBasis = 'authenticated' | 'declared';

/** Outcomes `recordUncleEdge` itself decides. */
export const UNCLE_RULE_OUTCOMES = [
  'noop-self',
  'noop-already-senior',
  'inverted',
  'refused-inversion-cycle',
  'refused-basis',
  'noop-spawn-ancestor',
  'refused-senior-chain',
  'refused-owner',
  'refused-budget',
  'written',
] as const;
export type UncleRuleOutcome = (typeof UNCLE_RULE_OUTCOMES)[number];

/**
 * What a delivery's response reports as `uncle_edge.outcome`: a rule outcome, or why no rule
 * was evaluated (no acting session, an unresolved declared one), or `record-failed` when the
 * recording itself threw. The delivery has landed in every case.
 */
export type UncleEdgeOutcome = UncleRuleOutcome | 'no-acting-session' | 'unresolved-acting-session' | 'record-failed';

/** Facts about A (acting, the would-be senior) and B (target, the would-be junior). */
export interface UncleFacts {
  actingId: number;
  targetId: number;
  actingBasis: UncleBasis;
  /** rule 6 applies only in multi-user mode */
  multiUser: boolean;
  /** A and B have the same owner (null equals only null) */
  sameOwner: boolean;
  /** rule 2: walking up from B finds A */
  actingReachesTarget?: SearchResult;
  /** rule 3: the direct uncle edge B → A, if one exists (null: none) */
  inverseEdge?: { basis: UncleBasis } | null;
  /** rule 3's re-check, after B → A was deleted and A → B written: walking up from A finds B */
  targetReachesActingAfterInversion?: SearchResult;
  /** rule 4: B is on A's spawn chain (walking up from A over spawn edges only finds B) */
  targetIsSpawnAncestor?: SearchResult;
  /** rule 5: walking up from A over any edges finds B */
  targetReachesActing?: SearchResult;
}

type UncleFactName = 'actingReachesTarget' | 'inverseEdge' | 'targetIsSpawnAncestor' | 'targetReachesActing';

/**
 * - `need`: run this search and call again with its result;
 * - `invert`: delete B → A and write A → B (in the same transaction), then run the re-check
 *   and call again with `targetReachesActingAfterInversion`;
 * - `decided`: the outcome, and what to do with the transaction: `write` A → B, `keep` the
 *   inversion, `rollback` the inversion, or `none`.
 */
type UncleStep =
  | { kind: 'need'; fact: UncleFactName }
  | { kind: 'invert' }
  | { kind: 'decided'; outcome: UncleRuleOutcome; rule: number; effect: 'none' | 'write' | 'keep' | 'rollback' };

const decided = (outcome: UncleRuleOutcome, rule: number, effect: 'none' | 'write' | 'keep' | 'rollback' = 'none'): UncleStep => ({
  kind: 'decided',
  outcome,
  rule,
  effect,
});

/**
 * The seven rules of docs/concepts.md, first match wins. The invariant: A → B is written (or kept
 * after an inversion) only when B provably cannot reach A; any search that must prove that
 * and exhausts its budget refuses (`refused-budget`). Rule 2's search exhausting is not a
 * refusal: a redundant edge cannot make a cycle, so evaluation continues.
 * @example decideUncleEdge({actingId: 1, targetId: 1, …}) // {kind:'decided', outcome:'noop-self', …}
 */
export function decideUncleEdge(f: UncleFacts): UncleStep {
  // 1. A is B
  if (f.actingId === f.targetId) return decided('noop-self', 1);

  // 2. A already reaches B going down
  if (f.actingReachesTarget === undefined) return { kind: 'need', fact: 'actingReachesTarget' };
  if (f.actingReachesTarget === 'found') return decided('noop-already-senior', 2);

  // 3. a direct uncle edge B → A exists: invert it, then re-check
  if (f.inverseEdge === undefined) return { kind: 'need', fact: 'inverseEdge' };
  if (f.inverseEdge !== null) {
    // a claim never erases evidence
    if (f.actingBasis === 'declared' && f.inverseEdge.basis === 'authenticated') return decided('refused-basis', 3);
    if (f.targetReachesActingAfterInversion === undefined) return { kind: 'invert' };
    if (f.targetReachesActingAfterInversion === 'found') return decided('refused-inversion-cycle', 3, 'rollback');
    if (f.targetReachesActingAfterInversion === 'exhausted') return decided('refused-budget', 3, 'rollback');
    return decided('inverted', 3, 'keep');
  }

  // 4. B is A's spawn ancestor: calling back up the spawn chain records nothing
  if (f.targetIsSpawnAncestor === undefined) return { kind: 'need', fact: 'targetIsSpawnAncestor' };
  if (f.targetIsSpawnAncestor === 'found') return decided('noop-spawn-ancestor', 4);

  // 5. B reaches A by any other path: only a direct edge inverts
  if (f.targetReachesActing === undefined) return { kind: 'need', fact: 'targetReachesActing' };
  if (f.targetReachesActing === 'found') return decided('refused-senior-chain', 5);
  if (f.targetReachesActing === 'exhausted') return decided('refused-budget', 5);

  // 6. owners differ (multi-user): an edge would widen whose human messages each side carries
  if (f.multiUser && !f.sameOwner) return decided('refused-owner', 6);

  // 7.
  return decided('written', 7, 'write');
}

/**
 * Drives `decideUncleEdge` to a decision: asks `facts` for each missing fact and `invert` to
 * perform an inversion (returning the re-check's result). The store layer and in-memory
 * models both use this one loop.
 */
export async function runUncleRules(
  initial: UncleFacts,
  io: { fact: (name: UncleFactName) => Promise<UncleFacts[UncleFactName]>; invert: () => Promise<SearchResult> },
): Promise<Extract<UncleStep, { kind: 'decided' }>> {
  const facts: UncleFacts = { ...initial };
  for (;;) {
    const step = decideUncleEdge(facts);
    if (step.kind === 'decided') return step;
    if (step.kind === 'invert') facts.targetReachesActingAfterInversion = await io.invert();
    else (facts as unknown as Record<string, unknown>)[step.fact] = await io.fact(step.fact);
  }
}
