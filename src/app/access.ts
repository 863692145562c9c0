import { WarrantError } from '../core/errors.js';
import { dependsOnDescent, permissionFor, type Act } from '../core/permissions.js';
import { isActive } from '../core/lifecycle.js';
import { parseSessionRef, type ParsedSessionRef } from '../core/session-ref.js';
import type { Executor } from '../store/dialect/dialect.js';
import { findSessionById, findSessionsByRef, type SessionRecord } from '../store/sessions-repo.js';
import { isSpawnAncestorOf } from '../store/spawn-ancestry-repo.js';
import type { AppContext } from './context.js';
import { permissionKind, type Caller } from './caller.js';
import { isVisible, type Visibility } from './views.js';

export { isVisible, type Visibility };

/**
 * Session rows already read inside one write transaction, by id: the caller's own row is
 * needed for visibility, the live-token check and the acting session, and the target is
 * often the caller itself, so one request used to read the same row three or four times.
 * Only transactions hold rows (a plain executor is shared by every request), and a row is
 * forgotten as soon as the transaction records a change to that session (WriteScope calls
 * `forgetSessionRow`), so no reader sees a row older than its own transaction's writes.
 */
const rowsByTransaction = new WeakMap<Executor, Map<number, SessionRecord>>();

function heldRows(db: Executor): Map<number, SessionRecord> | null {
  if (!db.isTransaction) return null;
  let rows = rowsByTransaction.get(db);
  if (!rows) rowsByTransaction.set(db, (rows = new Map<number, SessionRecord>()));
  return rows;
}

/** A session row by id, read at most once per write transaction until it changes. */
export async function sessionRowOnce(db: Executor, ctx: AppContext, id: number): Promise<SessionRecord | null> {
  const rows = heldRows(db);
  const held = rows?.get(id);
  if (held) return held;
  const row = await findSessionById(db, ctx.store, id);
  if (row) rows?.set(id, row);
  return row;
}

/** The transaction changed this session: the next read goes to the store. */
export function forgetSessionRow(db: Executor, id: number): void {
  rowsByTransaction.get(db)?.delete(id);
}

/** Owners whose sessions the caller may see, or 'all' (multi-user scoping). */
export async function visibilityOf(db: Executor, ctx: AppContext, caller: Caller): Promise<Visibility> {
  // Scoping separates owners; a single-admin deployment has one owner's world.
  if (ctx.mode !== 'multi-user') return 'all';
  const p = caller.principal;
  switch (p.kind) {
    case 'human':
      return p.isAdmin ? 'all' : { owners: [p.userId, null] };
    case 'session': {
      const self = await sessionRowOnce(db, ctx, p.sessionId);
      return { owners: [self ? self.ownerUserId : null] };
    }
    case 'witness':
      return { owners: [p.userId, null] };
    default:
      return 'all';
  }
}

export type RefResolution = { session: SessionRecord } | { session: null; reason: 'not-found' | 'ambiguous-prefix' | 'prefix-too-short' | 'hint-too-long' };

/**
 * The one session-ref resolver: parses, looks up, and applies visibility. An invisible
 * session resolves exactly like a missing one — `not-found`, everywhere, so no answer tells
 * another owner's ids or uid prefixes apart from nothing.
 */
export async function resolveRef(
  db: Executor,
  ctx: AppContext,
  visibility: Visibility,
  raw: string | number,
  options: { allowPrefix?: boolean; maxLength?: number } = {},
): Promise<RefResolution> {
  const text = String(raw);
  if (options.maxLength !== undefined && [...text].length > options.maxLength) return { session: null, reason: 'hint-too-long' };
  const parsed: ParsedSessionRef = parseSessionRef(text, options.allowPrefix ?? true);
  if (parsed.kind === 'invalid') return { session: null, reason: parsed.reason === 'prefix-too-short' ? 'prefix-too-short' : 'not-found' };
  const held = parsed.kind === 'id' ? heldRows(db)?.get(parsed.id) : undefined;
  const found = held ? [held] : await findSessionsByRef(db, ctx.store, parsed);
  const rows = heldRows(db);
  for (const s of found) rows?.set(s.id, s);
  const visible = found.filter((s) => isVisible(visibility, s.ownerUserId));
  if (visible.length > 1) return { session: null, reason: 'ambiguous-prefix' };
  if (visible.length === 1) return { session: visible[0]! };
  return { session: null, reason: 'not-found' };
}

export function sessionNotFound(ref: string | number, reason?: string): WarrantError {
  const why =
    reason === 'ambiguous-prefix'
      ? ' (the uid prefix matches more than one session; type more of it)'
      : reason === 'prefix-too-short'
        ? ' (a uid prefix needs at least 8 hex characters)'
        : '';
  return new WarrantError('session-not-found', `No session matches ${JSON.stringify(String(ref))}${why}.`, {
    details: { reason: reason ?? 'not-found' },
  });
}

/** Resolves a ref the caller typed, or throws 404. */
export async function requireSession(db: Executor, ctx: AppContext, caller: Caller, ref: string | number): Promise<SessionRecord> {
  const visibility = await visibilityOf(db, ctx, caller);
  const r = await resolveRef(db, ctx, visibility, ref);
  if (!r.session) throw sessionNotFound(ref, r.reason);
  return r.session;
}

/** Whether `ancestorId` is `target` or above it over spawn (lineage) edges. */
async function isSpawnAncestor(db: Executor, ctx: AppContext, ancestorId: number, target: SessionRecord): Promise<boolean> {
  return isSpawnAncestorOf(db, ctx.store, ancestorId, target.id);
}

/**
 * The one place docs/concepts.md's "Who may do what" table is enforced. `target` must already be
 * resolved through the caller's visibility (an invisible session is a 404 before this).
 * Every act but `read` also needs a session token of the current, live activation.
 */
export async function authorize(
  db: Executor,
  ctx: AppContext,
  caller: Caller,
  act: Act,
  target: SessionRecord | null,
  options: { declaredActingSession?: boolean } = {},
): Promise<void> {
  const kind = permissionKind(caller);
  const p = caller.principal;
  let relation = null;
  if (target && p.kind === 'session') {
    const isSelf = target.id === p.sessionId;
    relation = {
      isSelf,
      // the ancestry climb is a query: only for acts whose rule asks about descendants
      isDescendant: !isSelf && dependsOnDescent(kind, act) && (await isSpawnAncestor(db, ctx, p.sessionId, target)),
      isRuntimeChild: !isSelf && target.runtimeParentId === p.sessionId,
    };
  }
  const verdict = permissionFor(kind, act, relation, options.declaredActingSession ?? false);
  if (!verdict.allowed) throw new WarrantError('forbidden', `Not allowed: ${verdict.reason}.`, { details: { act } });
  if (act !== 'read' && p.kind === 'session') await requireLiveSessionToken(db, ctx, p.sessionId, p.activation);
}

/**
 * The runtime parent reporting for its child (`runtime-report` on a child it created with
 * `POST /sessions/{ref}/children`): its id, so the record says whose runtime reported; null
 * when the caller reports for itself or is no session.
 */
export function reportingRuntimeParent(caller: Caller, target: SessionRecord): number | null {
  const p = caller.principal;
  return p.kind === 'session' && p.sessionId !== target.id && target.runtimeParentId === p.sessionId ? p.sessionId : null;
}

/** A superseded or inert session token can still read, but never write (docs/concepts.md). */
export async function requireLiveSessionToken(db: Executor, ctx: AppContext, sessionId: number, activation: number): Promise<SessionRecord> {
  const self = await sessionRowOnce(db, ctx, sessionId);
  if (!self) throw new WarrantError('session-not-live', 'The session this token belongs to no longer exists.');
  if (self.activation !== activation) {
    throw new WarrantError(
      'token-superseded',
      `This session token belongs to activation ${activation} of session #${sessionId}; the current activation is ${self.activation}. Writes need the current token.`,
      {
        details: { token_activation: activation, current_activation: self.activation },
      },
    );
  }
  if (!isActive(self.status)) {
    throw new WarrantError('session-not-live', `Session #${sessionId} is ${self.status}; its token can read but not write until a runtime attaches again.`, {
      details: { status: self.status },
    });
  }
  return self;
}
