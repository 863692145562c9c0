import { WarrantError } from '../../core/errors.js';
import { runUncleRules, type UncleBasis, type UncleEdgeOutcome, type UncleRuleOutcome, type UncleSource } from '../../core/uncle-edge-rules.js';
import type { EventAttribution } from '../../store/events-repo.js';
import { loadHierarchyRows } from '../../store/lineage-repo.js';
import { deleteUncleEdge, findUncleEdge, insertUncleEdge, uncleEdgesTouching, type UncleEdgeRecord } from '../../store/uncles-repo.js';
import { authorize, requireSession } from '../access.js';
import { attributionOf, checkActingSessionClaim, resolveActing } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import type { DeletionCollector } from '../sessions/deletion-collector.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';
import { announceLineageChange } from './lineage-changes.js';
import { reachesFromAbove } from './upward-reach.js';

/** What one delivery asks `recordUncleEdge` to record: A (acting) queued or interrupted B. */
export interface UncleEdgeRequest {
  actingSessionId: number;
  targetSessionId: number;
  basis: UncleBasis;
  source: UncleSource;
  /** the act's actor (the acting session, with its basis), cause and credential */
  attribution: EventAttribution;
}

/** The response's `uncle_edge`. */
export interface UncleEdgeResult {
  outcome: UncleEdgeOutcome;
  actingSessionId: number | null;
  targetSessionId: number;
  basis: UncleBasis | null;
  source: UncleSource;
}

/** Unwinds the graph transaction when an inversion's re-check fails (docs/concepts.md rule 3). */
class InversionRolledBack extends Error {
  constructor(readonly outcome: UncleRuleOutcome) {
    super(`inversion rolled back: ${outcome}`);
  }
}

function edgeDetails(edge: UncleEdgeRecord): Record<string, unknown> {
  return {
    session_id: edge.sessionId,
    uncle_session_id: edge.uncleSessionId,
    source: edge.source,
    basis: edge.basis,
    recorded_by_actor_id: edge.recordedByActorId,
    created_at: edge.createdAt,
  };
}

/**
 * docs/concepts.md: edge changes are logged into both sessions' timelines, each saying which end it is.
 * Written in id order — each event locks its session's row — so no two transactions that touch
 * the same pair can deadlock.
 */
async function onBothTimelines(
  w: WriteScope,
  juniorId: number,
  uncleId: number,
  type: string,
  details: Record<string, unknown>,
  attribution: EventAttribution,
): Promise<void> {
  const ends = [
    { id: juniorId, role: 'junior' },
    { id: uncleId, role: 'uncle' },
  ].sort((x, y) => x.id - y.id);
  await w.events(
    ends.map((end) => ({ sessionId: end.id, type, details: { ...details, role: end.role } })),
    attribution,
  );
}

/**
 * docs/concepts.md: the one function that writes uncle edges. Called after the
 * delivery committed, in its own transaction under the graph lock; evaluates the seven rules
 * (core/uncle-edge-rules.ts) with upward searches over `seniorsOf`. Never throws: a refusal
 * is an outcome, and a recording that threw is `record-failed` — logged, because the
 * delivery it describes has already landed.
 */
export async function recordUncleEdge(ctx: AppContext, request: UncleEdgeRequest): Promise<UncleEdgeResult> {
  const a = request.actingSessionId;
  const b = request.targetSessionId;
  const result = (outcome: UncleEdgeOutcome): UncleEdgeResult => ({
    outcome,
    actingSessionId: a,
    targetSessionId: b,
    basis: request.basis,
    source: request.source,
  });
  try {
    const step = await inWriteTx(
      ctx,
      async (w) => {
        const rows = await loadHierarchyRows(w.tx, ctx.store, [a, b]);
        const acting = rows.find((r) => r.id === a);
        const target = rows.find((r) => r.id === b);
        if (!acting || !target) throw new Error(`session #${!acting ? a : b} no longer exists`);
        let replaced: UncleEdgeRecord | null = null;
        const written: UncleEdgeRecord = {
          sessionId: b,
          uncleSessionId: a,
          source: request.source,
          basis: request.basis,
          recordedByActorId: request.attribution.actorId,
          createdAt: w.now,
        };
        const decided = await runUncleRules(
          { actingId: a, targetId: b, actingBasis: request.basis, multiUser: ctx.mode === 'multi-user', sameOwner: acting.ownerUserId === target.ownerUserId },
          {
            fact: async (name) => {
              switch (name) {
                case 'actingReachesTarget':
                  return reachesFromAbove(w.tx, ctx.store, target, a);
                case 'inverseEdge': {
                  const inverse = await findUncleEdge(w.tx, a, b);
                  return inverse ? { basis: inverse.basis } : null;
                }
                case 'targetIsSpawnAncestor':
                  return reachesFromAbove(w.tx, ctx.store, acting, b, { spawnOnly: true });
                case 'targetReachesActing':
                  return reachesFromAbove(w.tx, ctx.store, acting, b);
              }
            },
            invert: async () => {
              replaced = await findUncleEdge(w.tx, a, b);
              await deleteUncleEdge(w.tx, a, b);
              await insertUncleEdge(w.tx, written);
              // does B still reach A by any other path?
              return reachesFromAbove(w.tx, ctx.store, acting, b);
            },
          },
        );
        if (decided.effect === 'rollback') throw new InversionRolledBack(decided.outcome);
        if (decided.effect === 'write') {
          await insertUncleEdge(w.tx, written);
          const details = edgeDetails(written);
          await onBothTimelines(w, b, a, 'uncle_linked', details, request.attribution);
          announceLineageChange(w, { kind: 'uncle_linked', sessionIds: [b, a] });
        } else if (decided.effect === 'keep') {
          const details = { ...edgeDetails(written), replaced: replaced ? edgeDetails(replaced) : null };
          await onBothTimelines(w, b, a, 'uncle_inverted', details, request.attribution);
          announceLineageChange(w, { kind: 'uncle_inverted', sessionIds: [b, a] });
        }
        return decided;
      },
      { graph: true },
    );
    if (step.outcome.startsWith('refused-'))
      ctx.logger.info(
        { uncle_edge: { outcome: step.outcome, rule: step.rule, acting_session_id: a, session_id: b, source: request.source } },
        'uncle edge not recorded',
      );
    return result(step.outcome);
  } catch (error) {
    if (error instanceof InversionRolledBack) {
      ctx.logger.info(
        { uncle_edge: { outcome: error.outcome, acting_session_id: a, session_id: b, source: request.source } },
        'uncle edge inversion rolled back',
      );
      return result(error.outcome);
    }
    ctx.logger.error(
      { err: error, uncle_edge: { acting_session_id: a, session_id: b, source: request.source, basis: request.basis } },
      'recording an uncle edge failed; the delivery stands',
    );
    return result('record-failed');
  }
}

/**
 * docs/concepts.md: exactly one edge, named by direction. A miss
 * is an error; a pair named backwards is refused with the direction that exists spelled out,
 * never deleting the opposite claim. Logged into both timelines.
 */
export async function removeUncleEdge(
  ctx: AppContext,
  caller: Caller,
  juniorRef: string,
  uncleRef: string,
  options: { actingSessionId?: string | number | null } = {},
): Promise<{ removed: UncleEdgeRecord }> {
  checkActingSessionClaim(caller, options.actingSessionId);
  return inWriteTx(
    ctx,
    async (w) => {
      const junior = await requireSession(w.tx, ctx, caller, juniorRef);
      const uncle = await requireSession(w.tx, ctx, caller, uncleRef);
      await authorize(w.tx, ctx, caller, 'remove-uncle', junior);
      const acting = await resolveActing(w, caller, options.actingSessionId);
      const edge = await findUncleEdge(w.tx, junior.id, uncle.id);
      if (!edge) {
        const reverse = await findUncleEdge(w.tx, uncle.id, junior.id);
        if (reverse) {
          throw new WarrantError(
            'uncle-link-reversed',
            `#${uncle.id} is not an uncle of #${junior.id}; the edge that exists runs the other way: #${junior.id} is an uncle of #${uncle.id} (remove it with DELETE /api/v1/sessions/${uncle.id}/uncle_links/${junior.id}). Nothing was removed.`,
            { details: { existing: { session_id: uncle.id, uncle_session_id: junior.id, basis: reverse.basis, source: reverse.source } } },
          );
        }
        throw new WarrantError('uncle-link-not-found', `#${uncle.id} is not an uncle of #${junior.id}; nothing was removed.`, {
          details: { session_id: junior.id, uncle_session_id: uncle.id },
        });
      }
      await deleteUncleEdge(w.tx, junior.id, uncle.id);
      const details = {
        session_id: junior.id,
        uncle_session_id: uncle.id,
        edge: { created_at: edge.createdAt, source: edge.source, basis: edge.basis, recorded_by_actor_id: edge.recordedByActorId },
        via: caller.via,
        ...(acting.actingOutcome === 'declared' ? { acting_session_id: acting.actingSession!.id } : {}),
      };
      const attribution = attributionOf(acting);
      await onBothTimelines(w, junior.id, uncle.id, 'uncle_removed', details, attribution);
      announceLineageChange(w, { kind: 'uncle_removed', sessionIds: [junior.id, uncle.id] });
      return { removed: edge };
    },
    { graph: true },
  );
}

/** A session's delete takes its uncle edges with it (FK cascade); its deletion record lists them (docs/attribution.md). */
export const uncleEdgeDeletionCollector: DeletionCollector = async (db, _ctx, session) => {
  const edges = await uncleEdgesTouching(db, session.id);
  return {
    affected: edges.map((e) => ({
      kind: 'uncle_edge',
      // the other end of the edge
      id: e.sessionId === session.id ? e.uncleSessionId : e.sessionId,
      action: 'removed',
      session_id: e.sessionId,
      uncle_session_id: e.uncleSessionId,
      source: e.source,
      basis: e.basis,
      created_at: e.createdAt,
    })),
  };
};
