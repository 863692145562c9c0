import { WarrantError } from '../../core/errors.js';
import { frameForItem } from '../../core/inbox-frames.js';
import { canResend, decideWritten, effectiveState, type WriteRejection } from '../../core/inbox-rules.js';
import { PROMPT_DIGEST_PATTERN, promptFingerprint } from '../../core/prompt-match.js';
import {
  deliverWrittenItem,
  markItemWritten,
  resendItem as resendRow,
  retireControlItems,
  settleOverdueWrites,
  writtenItemsMatching,
} from '../../store/inbox-delivery-repo.js';
import { findInboxItem, findInboxItems, type InboxItemRecord } from '../../store/inbox-repo.js';
import { findSessionsByIds, type SessionRecord } from '../../store/sessions-repo.js';
import { countPromptReports, findRunPrompt, insertPromptReport, matchPromptReport } from '../../store/terminal-witness-repo.js';
import { authorize, requireSession, visibilityOf } from '../access.js';
import { attributionOf, checkActingSessionClaim, housekeepingActing, resolveActing, systemForSession } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { expireDueMessages, markMessagesDelivered } from '../messages/message-settlement.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';
import { inboxChanged, inboxItemViews, requireDeliverable, type InboxItemView } from './inbox-items.js';

/**
 * Delivery into an agent, acknowledged by the agent (docs/api.md "Delivery into the agent"):
 * a runner reports what it wrote (`written`); the agent's prompt hook reports, through the
 * runner, a digest and length of each prompt it took; the server alone matches the two
 * (core/prompt-match.ts) and marks the oldest equal write `delivered`. A report's claim of
 * an outcome is never accepted. A write with no matching report within the lease reads
 * `undelivered` until a resend (by whoever may deliver) returns it to `pending`.
 */

interface WrittenReport {
  written: number[];
  alreadyWritten: number[];
  rejected: { id: number; reason: WriteRejection }[];
}

function checkIds(ids: unknown): number[] {
  if (!Array.isArray(ids) || ids.some((i) => !Number.isSafeInteger(i) || (i as number) <= 0)) {
    throw new WarrantError('invalid-request', 'ids: a list of inbox item ids.', { details: { field: 'ids' } });
  }
  if (ids.length > 1000) throw new WarrantError('invalid-request', 'ids: at most 1000 per call.', { details: { field: 'ids' } });
  return ids as number[];
}

/** `POST …/inbox/written`: the runner wrote these items into its agent. The session itself, fleet and admins. */
export async function reportWritten(ctx: AppContext, caller: Caller, ref: string, ids: unknown): Promise<WrittenReport> {
  const unique = [...new Set(checkIds(ids))];
  return inWriteTx(ctx, async (w) => {
    const session = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'runtime', session);
    const acting = await resolveActing(w, caller, null);
    // an agent message past its deadline has expired; it is not written (docs/messages.md)
    if (unique.length > 0) await expireDueMessages(w, { targetSessionId: session.id });
    const report: WrittenReport = { written: [], alreadyWritten: [], rejected: [] };
    const found = new Map((await findInboxItems(w.tx, session.id, unique)).map((i) => [i.id, i]));
    const deadline = new Date(Date.parse(w.now) + ctx.leaseMs).toISOString();
    const changed: InboxItemRecord[] = [];
    for (const id of unique) {
      const item = found.get(id);
      if (!item) {
        report.rejected.push({ id, reason: 'not-found' });
        continue;
      }
      const decision = decideWritten(item);
      if (decision.kind === 'already-written') report.alreadyWritten.push(id);
      else if (decision.kind === 'rejected') report.rejected.push({ id, reason: decision.reason });
      else {
        // the digest of exactly what the runner was handed to write: the item's frame text
        const { digest, length } = await promptFingerprint(frameForItem(item).text);
        if (await markItemWritten(w.tx, id, ['leased', 'pending'], { now: w.now, deadline, frameDigest: digest, frameLength: length })) {
          report.written.push(id);
          changed.push({ ...item, state: 'written' });
          await w.event(session.id, 'inbox_item_written', { inbox_item_id: id, kind: item.kind, mode: item.mode, deadline }, attributionOf(acting));
        } else report.rejected.push({ id, reason: 'not-leased' });
      }
    }
    if (changed.length > 0) inboxChanged(w, session, 'written', changed);
    return report;
  });
}

interface PromptReport {
  digest: unknown;
  length: unknown;
}

/**
 * `POST …/prompts`: the agent took a prompt with this digest and length. The oldest of the
 * session's written items with an equal frame is `delivered` — however late — and the same
 * report never delivers two items. Returns the item it delivered, or null.
 */
export async function reportPrompt(ctx: AppContext, caller: Caller, ref: string, report: PromptReport): Promise<{ matchedItemId: number | null }> {
  if (typeof report.digest !== 'string' || !PROMPT_DIGEST_PATTERN.test(report.digest)) {
    throw new WarrantError('invalid-request', 'digest: the lowercase hex SHA-256 of the normalized prompt (64 characters).', { details: { field: 'digest' } });
  }
  if (typeof report.length !== 'number' || !Number.isSafeInteger(report.length) || report.length < 0) {
    throw new WarrantError('invalid-request', 'length: the code points of the normalized prompt, a non-negative integer.', { details: { field: 'length' } });
  }
  const digest = report.digest;
  const length = report.length;
  return inWriteTx(ctx, async (w) => {
    const session = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'runtime', session);
    // an agent message whose deadline passed has expired, not been delivered (docs/messages.md)
    await expireDueMessages(w, { targetSessionId: session.id });
    // every report is kept with what it matched: the terminal channel's coverage reads them (docs/design/terminal-channel.md)
    const reportId = await insertPromptReport(w.tx, { sessionId: session.id, activation: session.activation, digest, length, now: w.now });
    const runPrompt = await findRunPrompt(w.tx, session.id, session.activation);
    if (runPrompt && runPrompt.digest === digest && runPrompt.length === length && (await countPromptReports(w.tx, session.id, session.activation)) === 1) {
      // `warrant run --prompt`: the first prompt the agent took is the one the person gave; no second record
      await matchPromptReport(w.tx, reportId, { kind: 'run_prompt', now: w.now });
      return { matchedItemId: null };
    }
    for (const item of await writtenItemsMatching(w.tx, session.id, digest, length)) {
      // compare-and-set: of two equal reports racing for one write, exactly one delivers it
      if (!(await deliverWrittenItem(w.tx, item.id, w.now))) continue;
      await matchPromptReport(w.tx, reportId, { kind: 'inbox_item', inboxItemId: item.id, now: w.now });
      const late = item.writtenDeadline !== null && item.writtenDeadline <= w.now;
      const acting = await resolveActing(w, caller, null);
      await w.event(
        session.id,
        'inbox_item_delivered',
        { inbox_item_id: item.id, kind: item.kind, mode: item.mode, via: 'prompt_report', written_at: item.writtenAt, late },
        attributionOf(acting),
      );
      inboxChanged(w, session, 'delivered', [{ ...item, state: 'delivered' }]);
      if (item.kind === 'agent_message') await markMessagesDelivered(w, [item.id]);
      return { matchedItemId: item.id };
    }
    return { matchedItemId: null };
  });
}

/** Writes past their deadline become `undelivered` rows with their event (system, docs/attribution.md). */
async function settleOverdueIn(w: WriteScope, options: { sessionId?: number; limit?: number }): Promise<number> {
  const settled = await settleOverdueWrites(w.tx, w.now, options);
  if (settled.length === 0) return 0;
  const acting = await housekeepingActing(w);
  const sessions = new Map(
    (
      await findSessionsByIds(
        w.tx,
        w.ctx.store,
        settled.map((i) => i.sessionId),
      )
    ).map((s) => [s.id, s]),
  );
  // one session's events in id order, sessions in id order (the per-session seq lock order)
  settled.sort((a, b) => a.sessionId - b.sessionId || a.id - b.id);
  for (const item of settled) {
    await w.event(
      item.sessionId,
      'inbox_item_undelivered',
      { inbox_item_id: item.id, kind: item.kind, mode: item.mode, written_at: item.writtenAt, deadline: item.writtenDeadline },
      attributionOf(acting),
    );
  }
  for (const s of sessions.values())
    inboxChanged(
      w,
      s,
      'undelivered',
      settled.filter((i) => i.sessionId === s.id),
    );
  return settled.length;
}

/** Housekeeping: every write past its deadline is recorded `undelivered`, in bounded batches. */
export async function settleUndeliveredWrites(ctx: AppContext): Promise<number> {
  let total = 0;
  for (let round = 0; round < 20; round++) {
    const n = await inWriteTx(ctx, (w) => settleOverdueIn(w, { limit: 200 }));
    total += n;
    if (n < 200) break;
  }
  return total;
}

function itemNotFound(itemId: number): WarrantError {
  return new WarrantError('inbox-item-not-found', `No inbox item ${itemId} that you can see.`, { details: { inbox_item_id: itemId } });
}

/**
 * `POST /api/v1/inbox/{item_id}/resend`: an `undelivered` item returns to `pending`, to be
 * leased and written again. Whoever may deliver to its session; anything else is refused.
 */
export async function resendInboxItem(
  ctx: AppContext,
  caller: Caller,
  itemId: number,
  input: { actingSessionId?: string | number | null } = {},
): Promise<{ item: InboxItemView }> {
  checkActingSessionClaim(caller, input.actingSessionId);
  return inWriteTx(ctx, async (w) => {
    const found = await findInboxItem(w.tx, itemId);
    if (!found) throw itemNotFound(itemId);
    // an item of a session the caller cannot see reads exactly like a missing one
    const session = await requireSession(w.tx, ctx, caller, found.sessionId).catch((error: unknown) => {
      if (error instanceof WarrantError && error.token === 'session-not-found') throw itemNotFound(itemId);
      throw error;
    });
    await authorize(w.tx, ctx, caller, 'deliver', session);
    requireDeliverable(session);
    const acting = await resolveActing(w, caller, input.actingSessionId);
    // the timeline says undelivered before it says resent
    await settleOverdueIn(w, { sessionId: session.id });
    const item = (await findInboxItem(w.tx, itemId))!;
    const state = effectiveState(item, w.now);
    if (!canResend(state) || !(await resendRow(w.tx, item.id, w.now))) {
      throw new WarrantError('inbox-item-not-undelivered', `Inbox item ${item.id} is ${state}; only an undelivered item can be resent.`, {
        details: { inbox_item_id: item.id, state },
      });
    }
    await w.event(
      session.id,
      'inbox_item_resent',
      { inbox_item_id: item.id, kind: item.kind, mode: item.mode, written_at: item.writtenAt },
      attributionOf(acting),
    );
    const fresh = (await findInboxItem(w.tx, item.id))!;
    inboxChanged(w, session, 'resent', [fresh]);
    const [view] = await inboxItemViews(w.tx, ctx, [fresh], await visibilityOf(w.tx, ctx, caller));
    return { item: view! };
  });
}

type RetireReason = 'runtime-exited' | 'runtime-error' | 'attached';

/**
 * A stop's `control` item is for the runtime that was running when it was asked: when that
 * runtime ends (or a new one attaches), an unacknowledged one is `retired`, so a later
 * activation never sees it. Inside the caller's transaction; system's act (docs/attribution.md).
 */
export async function retireStopItems(w: WriteScope, session: SessionRecord, reason: RetireReason): Promise<number> {
  const retired = await retireControlItems(w.tx, session.id, w.now);
  if (retired.length === 0) return 0;
  const attribution = await systemForSession(w, session);
  for (const item of retired) {
    await w.event(
      session.id,
      'inbox_item_retired',
      { inbox_item_id: item.id, kind: item.kind, action: item.details.action ?? null, reason, activation: session.activation },
      attribution,
    );
  }
  inboxChanged(w, session, 'retired', retired);
  return retired.length;
}
