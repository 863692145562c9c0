import { WarrantError } from '../../core/errors.js';
import { frameForItem, type RuntimeFrame } from '../../core/inbox-frames.js';
import {
  compareLeaseOrder,
  decideAck,
  DEFAULT_LEASE_BATCH,
  INBOX_KINDS,
  INBOX_STATES,
  leasableModes,
  MAX_LEASE_BATCH,
  OPEN_STATES,
  type AckRejection,
  type InboxKind,
  type InboxState,
} from '../../core/inbox-rules.js';
import {
  findInboxItems,
  lapseExpiredLeases,
  leasePendingItems,
  listInboxItems,
  markInboxItemsDelivered,
  type InboxItemRecord,
} from '../../store/inbox-repo.js';
import { findSessionsByIds, type SessionRecord } from '../../store/sessions-repo.js';
import { runnerDeliveryActivation } from '../../store/inbox-delivery-repo.js';
import { authorize, requireSession, visibilityOf, type Visibility } from '../access.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';
import { inboxChanged, inboxItemViews, type InboxItemView } from './inbox-items.js';
import { expireDueMessages, markMessagesDelivered } from '../messages/message-settlement.js';

/** A leased item: the view, the frame the runtime hands its model, and whether it was handed out before. */
export interface LeasedItem extends InboxItemView {
  frame: RuntimeFrame;
  /** true when an earlier lease of this item lapsed unacknowledged: not new, the same item again */
  redelivery: boolean;
}

export interface InboxListInput {
  states?: string[];
  kinds?: string[];
  cursor?: string;
  limit?: number;
}

function checkListed<T extends string>(values: string[] | undefined, allowed: readonly T[], field: string): T[] | undefined {
  if (!values) return undefined;
  const out = values.map((v) => v.trim()).filter((v) => v !== '');
  for (const v of out) {
    if (!(allowed as readonly string[]).includes(v))
      throw new WarrantError('invalid-request', `${field}: ${JSON.stringify(v)} is not one of ${allowed.join(', ')}.`, { details: { field } });
  }
  return out as T[];
}

/**
 * `GET …/inbox` (docs/messages.md): lists, changes nothing. Default: what is not yet delivered
 * (`pending`, `leased`, `written`, `undelivered`); `state=all` lists every state. Oldest first, cursor-paginated.
 */
export async function listInbox(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: InboxListInput,
): Promise<{ session: SessionRecord; items: InboxItemView[]; nextCursor: string | null }> {
  const db = ctx.store.kysely;
  const session = await requireSession(db, ctx, caller, ref);
  await authorize(db, ctx, caller, 'read', session);
  const all = input.states?.length === 1 && input.states[0] === 'all';
  const states = all ? undefined : (checkListed<InboxState>(input.states, INBOX_STATES, 'state') ?? [...OPEN_STATES]);
  const kinds = checkListed<InboxKind>(input.kinds, INBOX_KINDS, 'kind');
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  const rows = await listInboxItems(db, {
    sessionId: session.id,
    now: ctx.clock.now().toISOString(),
    ...(states ? { states } : {}),
    ...(kinds ? { kinds } : {}),
    ...(input.cursor ? { afterId: decodeCursor(input.cursor, 'inbox') } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  return {
    session,
    items: await inboxItemViews(db, ctx, page, await visibilityOf(db, ctx, caller)),
    nextCursor: rows.length > limit ? encodeCursor('inbox', page[page.length - 1]!.id) : null,
  };
}

interface LeaseInput {
  /** the runtime says it is idle: `when_idle` items may be leased even if the session's status lags */
  runtimeIdle?: boolean;
  maxItems?: number;
}

export interface AckReport {
  delivered: number[];
  alreadyDelivered: number[];
  rejected: { id: number; reason: AckRejection }[];
}

async function leaseIn(
  w: WriteScope,
  session: SessionRecord,
  input: LeaseInput,
  visibility: Visibility,
): Promise<{ items: LeasedItem[]; leaseExpiresAt: string | null }> {
  const ctx = w.ctx;
  const maxItems = input.maxItems ?? DEFAULT_LEASE_BATCH;
  if (!Number.isInteger(maxItems) || maxItems < 1 || maxItems > MAX_LEASE_BATCH) {
    throw new WarrantError('invalid-request', `max_items: between 1 and ${MAX_LEASE_BATCH}.`, { details: { field: 'max_items' } });
  }
  const lapsed = await lapseExpiredLeases(w.tx, w.now, session.id);
  // docs/messages.md: a late lease never hands out an expired agent message
  await expireDueMessages(w, { targetSessionId: session.id });
  const expiresAt = new Date(Date.parse(w.now) + ctx.leaseMs).toISOString();
  const modes = leasableModes({ sessionIdle: session.status === 'idle', runtimeIdle: input.runtimeIdle ?? false });
  const leased = (await leasePendingItems(w.tx, { sessionId: session.id, modes, now: w.now, expiresAt, limit: maxItems })).sort(compareLeaseOrder);
  if (leased.length > 0) inboxChanged(w, session, 'leased', leased);
  else if (lapsed.length > 0)
    inboxChanged(
      w,
      session,
      'lease-lapsed',
      await findInboxItems(
        w.tx,
        session.id,
        lapsed.map((l) => l.id),
      ),
    );
  const views = await inboxItemViews(w.tx, ctx, leased, visibility);
  return {
    items: views.map((v, i) => ({ ...v, frame: frameForItem(leased[i]!), redelivery: leased[i]!.leaseCount > 1 })),
    leaseExpiresAt: leased.length > 0 ? expiresAt : null,
  };
}

async function ackIn(w: WriteScope, session: SessionRecord, ids: readonly number[]): Promise<AckReport> {
  const report: AckReport = { delivered: [], alreadyDelivered: [], rejected: [] };
  const unique = [...new Set(ids)];
  // docs/messages.md: an agent message acknowledged after its deadline has expired, not been delivered
  if (unique.length > 0) await expireDueMessages(w, { targetSessionId: session.id });
  const found = new Map((await findInboxItems(w.tx, session.id, unique)).map((i) => [i.id, i]));
  const changed: InboxItemRecord[] = [];
  const decisions = unique.map((id) => {
    const item = found.get(id);
    return { id, item, decision: item ? decideAck(item) : null };
  });
  // every item the rules let through moves in one compare-and-set statement
  const moved = await markInboxItemsDelivered(
    w.tx,
    session.id,
    decisions.filter((d) => d.decision?.kind === 'deliver').map((d) => d.id),
    ['leased', 'pending'],
    w.now,
  );
  for (const { id, item, decision } of decisions) {
    if (!item || !decision) report.rejected.push({ id, reason: 'not-found' });
    else if (decision.kind === 'already-delivered') report.alreadyDelivered.push(id);
    else if (decision.kind === 'rejected') report.rejected.push({ id, reason: decision.reason });
    else if (moved.has(id)) {
      report.delivered.push(id);
      changed.push({ ...item, state: 'delivered' });
    } else report.rejected.push({ id, reason: 'not-leased' });
  }
  if (changed.length > 0) inboxChanged(w, session, 'delivered', changed);
  const messages = changed.filter((i) => i.kind === 'agent_message').map((i) => i.id);
  if (messages.length > 0) await markMessagesDelivered(w, messages);
  return report;
}

function checkAckIds(ids: unknown): number[] {
  if (!Array.isArray(ids) || ids.some((i) => !Number.isSafeInteger(i) || (i as number) <= 0)) {
    throw new WarrantError('invalid-request', 'ids: a list of inbox item ids.', { details: { field: 'ids' } });
  }
  if (ids.length > 1000) throw new WarrantError('invalid-request', 'ids: at most 1000 per call.', { details: { field: 'ids' } });
  return ids as number[];
}

/**
 * `POST …/inbox/lease` (docs/messages.md): interrupt items first; `when_idle` only when the session is
 * idle or the runtime says so; a lapsed lease returns its items first. Leased items are
 * handed out again only after their lease lapses. The session itself, fleet and admins only.
 */
export async function leaseInbox(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: LeaseInput,
): Promise<{ session: SessionRecord; items: LeasedItem[]; leaseExpiresAt: string | null }> {
  return inWriteTx(ctx, async (w) => {
    const session = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'runtime', session);
    return { session, ...(await leaseIn(w, session, input, await visibilityOf(w.tx, ctx, caller))) };
  });
}

/** `POST …/inbox/ack`: explicit acknowledgement marks items delivered (docs/messages.md). */
export async function ackInbox(ctx: AppContext, caller: Caller, ref: string, ids: unknown): Promise<AckReport> {
  const checked = checkAckIds(ids);
  return inWriteTx(ctx, async (w) => {
    const session = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'runtime', session);
    return ackIn(w, session, checked);
  });
}

/** What `read_inbox` returns; `delivery: 'runner'` when it only listed (the runner delivers). */
interface ReadInboxResult {
  ack: AckReport;
  items: LeasedItem[];
  leaseExpiresAt: string | null;
  delivery: 'mcp' | 'runner';
}

/**
 * MCP `read_inbox`: acknowledges the items of earlier calls, then leases new ones — in one
 * transaction, so a retried stateless call neither loses an item (unacknowledged items come
 * back when their lease lapses) nor hands one out twice as new (`redelivery` marks a repeat).
 * While the session's current activation has a runner that owns delivery (`delivery:
 * "runner"` on attach), it lists what is waiting and leases and acknowledges nothing: the
 * runner writes each item into the agent and only the agent's prompt report delivers it.
 */
export async function readInbox(ctx: AppContext, caller: Caller, ref: string, input: LeaseInput & { ack?: unknown }): Promise<ReadInboxResult> {
  const ids = input.ack === undefined ? [] : checkAckIds(input.ack);
  return inWriteTx(ctx, async (w) => {
    const session = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'runtime', session);
    if ((await runnerDeliveryActivation(w.tx, session.id)) === session.activation) {
      const maxItems = input.maxItems ?? DEFAULT_LEASE_BATCH;
      const rows = await listInboxItems(w.tx, {
        sessionId: session.id,
        now: w.now,
        states: OPEN_STATES,
        limit: Math.min(Math.max(maxItems, 1), MAX_LEASE_BATCH),
      });
      const views = await inboxItemViews(w.tx, ctx, rows, await visibilityOf(w.tx, ctx, caller));
      return {
        ack: { delivered: [], alreadyDelivered: [], rejected: [...new Set(ids)].map((id) => ({ id, reason: 'runner-delivery' as const })) },
        items: views.map((v, i) => ({ ...v, frame: frameForItem(rows[i]!), redelivery: rows[i]!.leaseCount > 0 })),
        leaseExpiresAt: null,
        delivery: 'runner' as const,
      };
    }
    const ack = await ackIn(w, session, ids);
    return { ack, ...(await leaseIn(w, session, input, await visibilityOf(w.tx, ctx, caller))), delivery: 'mcp' as const };
  });
}

/** Housekeeping: lapsed leases everywhere return to `pending`, and their runtimes hear of it. */
export async function lapseLeases(ctx: AppContext): Promise<number> {
  return inWriteTx(ctx, async (w) => {
    const lapsed = await lapseExpiredLeases(w.tx, w.now);
    if (lapsed.length === 0) return 0;
    const bySession = new Map<number, number[]>();
    for (const l of lapsed) bySession.set(l.sessionId, [...(bySession.get(l.sessionId) ?? []), l.id]);
    for (const session of await findSessionsByIds(w.tx, ctx.store, [...bySession.keys()])) {
      inboxChanged(w, session, 'lease-lapsed', await findInboxItems(w.tx, session.id, bySession.get(session.id)!));
    }
    return lapsed.length;
  });
}
