/**
 * docs/messages.md: how anything reaches a session. Items are leased by the runtime and
 * acknowledged explicitly; these are the pure rules for what may be leased, in which order,
 * and which changes a queued item may still take.
 */
export const INBOX_KINDS = ['follow_up', 'enqueued', 'agent_message', 'parent_message', 'control'] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

export const INBOX_MODES = ['next_turn', 'when_idle', 'interrupt'] as const;
export type InboxMode = (typeof INBOX_MODES)[number];

/**
 * `written`: a runner wrote the item into its agent and awaits the agent's prompt report
 * (never leased again: typed bytes cannot be taken back); past its deadline it reads
 * `undelivered` until a matching report still delivers it or a resend makes it `pending`.
 * `retired`: a stop's control item whose runtime ended before it was acknowledged.
 */
export const INBOX_STATES = ['pending', 'leased', 'written', 'delivered', 'undelivered', 'withdrawn', 'expired', 'retired'] as const;
export type InboxState = (typeof INBOX_STATES)[number];

/** The queue a person or agent sees by default: items not yet delivered, withdrawn, expired or retired. */
export const OPEN_STATES: readonly InboxState[] = ['pending', 'leased', 'written', 'undelivered'];

/** States an agent message's deadline still applies to: not yet settled (docs/messages.md). */
export const UNSETTLED_STATES: readonly InboxState[] = ['pending', 'leased', 'written', 'undelivered'];

/** States a prompt report can still deliver: written into the agent, however late. */
export const MATCHABLE_STATES: readonly InboxState[] = ['written', 'undelivered'];

/** Content of one item: larger text belongs in a file the agent can read. */
export const MAX_INBOX_CONTENT_BYTES = 256 * 1024;

export const DEFAULT_LEASE_BATCH = 50;
export const MAX_LEASE_BATCH = 100;

/** Lease order: `interrupt` items first, then next-turn, then when-idle; oldest first within each. */
const LEASE_PRIORITY: Record<InboxMode, number> = { interrupt: 0, next_turn: 1, when_idle: 2 };

/**
 * The modes a lease may take now: `when_idle` items only when the session is idle or the
 * lease call says the runtime is idle.
 * @example leasableModes({sessionIdle: false, runtimeIdle: false}) // ['interrupt', 'next_turn']
 */
export function leasableModes(state: { sessionIdle: boolean; runtimeIdle: boolean }): InboxMode[] {
  return state.sessionIdle || state.runtimeIdle ? ['interrupt', 'next_turn', 'when_idle'] : ['interrupt', 'next_turn'];
}

/** Orders leasable items as a lease hands them out. */
export function compareLeaseOrder(a: { mode: InboxMode; id: number }, b: { mode: InboxMode; id: number }): number {
  return LEASE_PRIORITY[a.mode] - LEASE_PRIORITY[b.mode] || a.id - b.id;
}

/**
 * The state a reader sees: a lease that lapsed has returned the item to `pending`, and an
 * item past its deadline has expired, even before housekeeping rewrites the row (a listing
 * changes nothing).
 */
export function effectiveState(
  item: { state: InboxState; leaseExpiresAt: string | null; expiresAt?: string | null; writtenDeadline?: string | null },
  nowIso: string,
): InboxState {
  // docs/messages.md: an agent message whose deadline passed before it was acknowledged is expired
  if (UNSETTLED_STATES.includes(item.state) && item.expiresAt != null && item.expiresAt <= nowIso) return 'expired';
  if (item.state === 'leased' && item.leaseExpiresAt !== null && item.leaseExpiresAt <= nowIso) return 'pending';
  // a write the agent never reported taking within the lease reads undelivered
  if (item.state === 'written' && item.writtenDeadline != null && item.writtenDeadline <= nowIso) return 'undelivered';
  return item.state;
}

/** Which queued items a person or agent may still redirect: `enqueued` items only. */
export function isQueueItem(kind: InboxKind): boolean {
  return kind === 'enqueued';
}

export type QueueChange = 'send_now' | 'interrupt' | 'withdraw';

/**
 * What a change to a queued item does (docs/messages.md): `send_now` makes a when-idle item the next
 * turn, `interrupt` makes it interrupt now, `withdraw` takes it back before delivery. Only a
 * pending item can change — a leased one is in the runtime's hands and may already be shown
 * to the model. A change with no effect (send_now of a next-turn or interrupt item, interrupt
 * of an interrupt item) records nothing.
 */
type QueueChangeDecision = { kind: 'change'; to: { mode: InboxMode } | { state: 'withdrawn' } } | { kind: 'noop' } | { kind: 'refused'; state: InboxState };

export function decideQueueChange(item: { mode: InboxMode; state: InboxState }, change: QueueChange): QueueChangeDecision {
  if (item.state !== 'pending') return { kind: 'refused', state: item.state };
  switch (change) {
    case 'withdraw':
      return { kind: 'change', to: { state: 'withdrawn' } };
    case 'send_now':
      // an interrupt is already more urgent than the next turn: never downgrade it
      return item.mode === 'when_idle' ? { kind: 'change', to: { mode: 'next_turn' } } : { kind: 'noop' };
    case 'interrupt':
      return item.mode === 'interrupt' ? { kind: 'noop' } : { kind: 'change', to: { mode: 'interrupt' } };
  }
}

/**
 * An acknowledgement marks an item delivered when the runtime was handed it: it is leased,
 * or its lease lapsed after it was handed out (the runtime still received it). Acknowledging
 * a delivered item again changes nothing.
 */
/** `runner-delivery`: MCP `read_inbox` acknowledges nothing while the session's runner owns delivery. */
export const ACK_REJECTIONS = ['not-found', 'not-leased', 'withdrawn', 'expired', 'written', 'undelivered', 'retired', 'runner-delivery'] as const;
export type AckRejection = (typeof ACK_REJECTIONS)[number];

/**
 * A `written` or `undelivered` item is refused: only the agent's prompt report can deliver
 * what was written into it, never an acknowledgement made with the same token.
 */
type AckDecision = { kind: 'deliver' } | { kind: 'already-delivered' } | { kind: 'rejected'; reason: Exclude<AckRejection, 'not-found' | 'runner-delivery'> };

export function decideAck(item: { state: InboxState; leaseCount: number }): AckDecision {
  switch (item.state) {
    case 'written':
    case 'undelivered':
    case 'retired':
      return { kind: 'rejected', reason: item.state };
    case 'leased':
      return { kind: 'deliver' };
    case 'pending':
      return item.leaseCount > 0 ? { kind: 'deliver' } : { kind: 'rejected', reason: 'not-leased' };
    case 'delivered':
      return { kind: 'already-delivered' };
    case 'withdrawn':
      return { kind: 'rejected', reason: 'withdrawn' };
    case 'expired':
      return { kind: 'rejected', reason: 'expired' };
  }
}

export const WRITE_REJECTIONS = ['not-found', 'not-leased', 'control', 'delivered', 'withdrawn', 'expired', 'retired'] as const;
export type WriteRejection = (typeof WRITE_REJECTIONS)[number];

/**
 * A runner reports it wrote an item into its agent: an item it was handed (leased, or a lease
 * that lapsed after it was handed out, as for an acknowledgement) becomes `written`. A
 * `control` item acts on the process, never on the agent's input, so it is never written.
 * Writing a written (or undelivered) item again changes nothing.
 */
type WriteDecision = { kind: 'write' } | { kind: 'already-written' } | { kind: 'rejected'; reason: Exclude<WriteRejection, 'not-found'> };

export function decideWritten(item: { kind: InboxKind; state: InboxState; leaseCount: number }): WriteDecision {
  if (item.kind === 'control') return { kind: 'rejected', reason: 'control' };
  switch (item.state) {
    case 'leased':
      return { kind: 'write' };
    case 'pending':
      return item.leaseCount > 0 ? { kind: 'write' } : { kind: 'rejected', reason: 'not-leased' };
    case 'written':
    case 'undelivered':
      return { kind: 'already-written' };
    case 'delivered':
    case 'withdrawn':
    case 'expired':
    case 'retired':
      return { kind: 'rejected', reason: item.state };
  }
}

/** Only an `undelivered` item (as a reader sees it) can be resent: it returns to `pending`. */
export function canResend(effective: InboxState): boolean {
  return effective === 'undelivered';
}

/** A stop's control item that a runtime's end retires: one not yet acknowledged. */
export const RETIRABLE_STATES: readonly InboxState[] = ['pending', 'leased'];
