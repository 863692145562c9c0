import { WarrantError } from '../../core/errors.js';
import { planArchiveCascade, type SkipReason } from '../../core/archive-cascade.js';
import { decideTransition, isActive, type LifecycleAct } from '../../core/lifecycle.js';
import { titleFromFailure, slugify } from '../../core/titles.js';
import { addInboxItem } from '../inbox/inbox-items.js';
import { retireStopItems } from '../inbox/agent-delivery.js';
import { revokeWitnessCredentials } from '../../store/terminal-witness-repo.js';
import { findSessionById, spawnChildrenOf, type SessionRecord } from '../../store/sessions-repo.js';
import { authorize, reportingRuntimeParent, requireSession, visibilityOf } from '../access.js';
import { attributionOf, checkActingSessionClaim, resolveActing, systemForSession, type Acting } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { sessionView, type SessionView } from '../views.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';
import { attachMint } from './attach-runtime.js';
import type { RunnerFacts } from './create-session.js';

interface LifecycleResult {
  session: SessionView;
  /** false when the act had no effect (and recorded nothing) */
  changed: boolean;
}

const MAX_CAS_ATTEMPTS = 8;

function invalidTransition(session: SessionRecord, act: string): WarrantError {
  return new WarrantError('invalid-transition', `Cannot ${act} session #${session.id}: it is ${session.status}.`, {
    details: { status: session.status, act },
  });
}

/**
 * Re-reads and re-decides until a compare-and-set lands or the act has no effect: of two
 * concurrent identical changes exactly one takes effect and records its event.
 */
async function transition(
  w: WriteScope,
  session: SessionRecord,
  act: LifecycleAct,
  actName: string,
  apply: (current: SessionRecord, decision: Exclude<ReturnType<typeof decideTransition>, { kind: 'noop' | 'invalid' }>) => Promise<boolean>,
): Promise<{ session: SessionRecord; changed: boolean }> {
  let current = session;
  for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
    const decision = decideTransition(current.status, act, current.stopRequested);
    if (decision.kind === 'invalid') throw invalidTransition(current, actName);
    if (decision.kind === 'noop') return { session: current, changed: false };
    if (await apply(current, decision)) {
      return { session: (await findSessionById(w.tx, w.ctx.store, current.id))!, changed: true };
    }
    const fresh = await findSessionById(w.tx, w.ctx.store, current.id);
    if (!fresh) throw new WarrantError('session-not-found', `Session #${current.id} was deleted meanwhile.`);
    current = fresh;
  }
  throw new WarrantError('store-unavailable', `Session #${session.id} kept changing; nothing was recorded. Retry.`);
}

type SimpleAct = 'resume' | 'unarchive' | 'stop';

/**
 * What an event's details say about a declared acting session (docs/attribution.md: `archived` carries
 * the declared `acting_session_id`): the resolved id, or — when the fleet caller named one
 * that did not resolve — the text it gave, so the record shows the claim was not accepted.
 */
function actingDetails(acting: Acting): Record<string, unknown> {
  if (acting.actingOutcome === 'declared') return { acting_session_id: acting.actingSession!.id };
  if (acting.actingOutcome === 'unresolved-acting-session') return { acting_session_id: null, acting_session_unresolved: acting.requestedActingSession };
  return {};
}

/** resume, unarchive and stop (docs/concepts.md's lifecycle table); no-effect acts record nothing. */
export async function changeLifecycle(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  act: SimpleAct,
  actingSessionId?: string | number | null,
): Promise<LifecycleResult> {
  checkActingSessionClaim(caller, actingSessionId);
  return inWriteTx(ctx, async (w) => {
    const target = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'lifecycle', target);
    const acting = await resolveActing(w, caller, actingSessionId);
    const attribution = attributionOf(acting);
    const details = actingDetails(acting);
    await ctx.seams?.afterRead?.('lifecycle', target.id);
    const result = await transition(w, target, act, act, async (current, decision) => {
      if (decision.kind === 'stop-request') {
        if (!(await w.updateSession(current, { stopRequested: true }))) return false;
        await w.event(current.id, 'stop_requested', { ...details, status: current.status }, attribution);
        await addControlItem(w, current, acting);
        return true;
      }
      if (!(await w.updateSession(current, { status: decision.to }))) return false;
      const extra = act === 'resume' ? { reason: 'resume' } : {};
      await w.event(current.id, decision.event, { ...details, ...extra, old: current.status, new: decision.to }, attribution);
      return true;
    });
    const view = await sessionView(w.tx, ctx, result.session, await visibilityOf(w.tx, ctx, caller));
    w.finalView(view, result.session.ownerUserId);
    return { session: view, changed: result.changed };
  });
}

/** A stop reaching running work becomes a `control` item for the runtime (docs/concepts.md, docs/messages.md). */
async function addControlItem(w: WriteScope, session: SessionRecord, acting: Acting): Promise<void> {
  await addInboxItem(w, { target: session, kind: 'control', mode: 'interrupt', content: 'stop', details: { action: 'stop' }, acting });
}

interface ArchiveResult {
  archived: number[];
  skipped: { id: number; reason: SkipReason }[];
}

/** Archive with its bottom-up cascade down the spawn subtree (docs/concepts.md). */
export async function archiveSession(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  actingSessionId?: string | number | null,
  options: { staleBefore?: string } = {},
): Promise<ArchiveResult> {
  checkActingSessionClaim(caller, actingSessionId);
  return inWriteTx(ctx, async (w) => {
    const target = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'lifecycle', target);
    const acting = await resolveActing(w, caller, actingSessionId);
    const attribution = attributionOf(acting);
    const subtree = await spawnSubtree(w, target);
    // housekeeping's automatic archive: only a subtree untouched since the cutoff (retention.ts)
    if (options.staleBefore !== undefined && subtree.some((s) => s.record.status !== 'archived' && s.record.updatedAt >= options.staleBefore!)) {
      return { archived: [], skipped: [] };
    }
    const plan = planArchiveCascade(
      target.id,
      subtree.map((s) => ({ id: s.record.id, parentId: s.parentId, status: s.record.status })),
    );
    const byId = new Map(subtree.map((s) => [s.record.id, s.record]));
    await ctx.seams?.afterRead?.('archive', target.id);
    const archived: number[] = [];
    const skipped = [...plan.skipped];
    for (const id of plan.archive) {
      const result = await transition(w, byId.get(id)!, 'archive', 'archive', async (current) => {
        if (isActive(current.status)) return false;
        if (!(await w.updateSession(current, { status: 'archived' }))) return false;
        await w.event(
          current.id,
          'archived',
          {
            old: current.status,
            new: 'archived',
            ...(current.id !== target.id ? { cascade_from: target.id } : {}),
            ...actingDetails(acting),
          },
          attribution,
        );
        return true;
      }).catch((error: unknown) => {
        // a descendant that became active meanwhile is skipped, never archived over
        if (error instanceof WarrantError && error.token === 'invalid-transition') return { session: byId.get(id)!, changed: false };
        throw error;
      });
      if (result.changed) archived.push(id);
      else if (isActive(result.session.status)) skipped.push({ id, reason: 'active' });
    }
    return { archived, skipped };
  });
}

/** The spawn subtree of `root`, breadth-first, over the column and the legacy key. */
async function spawnSubtree(w: WriteScope, root: SessionRecord): Promise<{ record: SessionRecord; parentId: number | null }[]> {
  const out: { record: SessionRecord; parentId: number | null }[] = [{ record: root, parentId: null }];
  const seen = new Set<number>([root.id]);
  let frontier = [root];
  while (frontier.length > 0) {
    const children = await spawnChildrenOf(w.tx, w.ctx.store, frontier);
    frontier = [];
    for (const { parentId, child } of children) {
      if (seen.has(child.id)) continue;
      seen.add(child.id);
      out.push({ record: child, parentId });
      frontier.push(child);
    }
  }
  return out;
}

/**
 * A runtime takes the session: activation + 1 and a new token; earlier tokens are superseded.
 * `delivery: 'runner'`: this activation's runner writes inbox items into its agent, so MCP
 * `read_inbox` lists without leasing (docs/api.md "Delivery into the agent").
 */
export async function attachSession(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  options: { runner?: RunnerFacts | null; delivery?: unknown } = {},
): Promise<{ session: SessionView; sessionToken: string }> {
  const delivery = checkDelivery(options.delivery);
  return inWriteTx(ctx, async (w) => {
    const target = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'attach', target);
    const acting = await resolveActing(w, caller, null);
    const decision = decideTransition(target.status, 'attach');
    if (decision.kind !== 'change') throw invalidTransition(target, 'attach');
    const minted = await attachMint(w, target, acting.actorId, attributionOf(acting), caller, { runner: options.runner ?? null, delivery }).catch(
      async (error: unknown) => {
        const fresh = await findSessionById(w.tx, ctx.store, target.id);
        if (fresh && decideTransition(fresh.status, 'attach').kind !== 'change') throw invalidTransition(fresh, 'attach');
        throw error;
      },
    );
    return { session: await sessionView(w.tx, ctx, minted.session, await visibilityOf(w.tx, ctx, caller)), sessionToken: minted.token };
  });
}

/** The one parser of `delivery` (attach, create with attach): `runner` or nothing. */
function checkDelivery(value: unknown): 'runner' | null {
  if (value === undefined || value === null) return null;
  if (value === 'runner') return 'runner';
  throw new WarrantError('invalid-request', 'delivery: "runner" (the runner writes inbox items into its agent), or omit it.', {
    details: { field: 'delivery' },
  });
}

export type RuntimeReport = { state: 'started' } | { state: 'idle' } | { state: 'exited'; code: number } | { state: 'error'; reason?: string | null };

/** Runner-reported state: unattributed events (docs/attribution.md), the failure naming an untitled session. */
export async function reportRuntime(ctx: AppContext, caller: Caller, ref: string, report: RuntimeReport): Promise<LifecycleResult> {
  return inWriteTx(ctx, async (w) => {
    const target = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'runtime-report', target);
    const runtimeParent = reportingRuntimeParent(caller, target);
    const act: LifecycleAct =
      report.state === 'started'
        ? 'runtime-started'
        : report.state === 'idle'
          ? 'runtime-idle'
          : report.state === 'error'
            ? 'runtime-error'
            : report.code === 0
              ? 'runtime-exited-ok'
              : 'runtime-exited-fail';
    const result = await transition(w, target, act, `report ${report.state} for`, async (current, decision) => {
      if (decision.kind !== 'change') return false;
      const failing = decision.to === 'failed';
      const reason = report.state === 'error' ? (report.reason ?? 'runtime error') : report.state === 'exited' ? `exited with code ${report.code}` : null;
      const nameIt = failing && current.title === null;
      const title = nameIt ? titleFromFailure(reason) : undefined;
      const changes = {
        status: decision.to,
        ...(decision.to === 'stopped' || decision.to === 'failed' ? { stopRequested: false } : {}),
        ...(failing ? { failureReason: reason } : {}),
        ...(title ? { title, slug: current.slug ?? slugify(title) } : {}),
      };
      if (!(await w.updateSession(current, changes))) return false;
      const details: Record<string, unknown> = { old: current.status, new: decision.to };
      if (report.state === 'exited') details.code = report.code;
      if (failing) details.reason = reason;
      if (current.stopRequested && decision.to === 'stopped') details.after_stop_request = true;
      // runtime state stays unattributed (docs/attribution.md); the details say whose runtime reported it
      if (runtimeParent !== null) details.runtime_parent_id = runtimeParent;
      await w.event(current.id, decision.event, details, null);
      // the stop asked of this runtime ends with it: a later activation must never act on it
      if (decision.to === 'stopped' || decision.to === 'failed')
        await retireStopItems(w, current, report.state === 'error' ? 'runtime-error' : 'runtime-exited');
      if (title) await w.event(current.id, 'title_generated', { new: title, from: 'failure_reason' }, await systemForSession(w, current));
      return true;
    });
    // the run's terminal witness ends with it (docs/design/terminal-channel.md): a close after this is refused
    if (report.state === 'exited' || report.state === 'error') await revokeWitnessCredentials(w.tx, target.id, w.now, target.activation);
    const view = await sessionView(w.tx, ctx, result.session, await visibilityOf(w.tx, ctx, caller));
    w.finalView(view, result.session.ownerUserId);
    return { session: view, changed: result.changed };
  });
}
