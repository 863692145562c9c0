import type { ActorIdentity } from '../core/actors.js';
import { weakerBasis, type ActBasis } from '../core/basis.js';
import { WarrantError } from '../core/errors.js';
import type { EventAttribution } from '../store/events-repo.js';
import type { SessionRecord } from '../store/sessions-repo.js';
import { resolveRef, sessionRowOnce, visibilityOf } from './access.js';
import { callerActor, type Caller } from './caller.js';
import type { WriteScope } from './write-scope.js';

/** How the acting session of an act was established (docs/concepts.md). */
type ActingOutcome = 'authenticated' | 'declared' | 'unresolved-acting-session' | 'no-acting-session';

/** The actor and cause of one act, with their bases, ready to be written beside it. */
export interface Acting {
  actor: ActorIdentity;
  actorId: number;
  actorBasis: ActBasis;
  causeActorId: number | null;
  causeBasis: ActBasis | null;
  credentialId: number | null;
  /** the session acting (its own token, or declared by a fleet caller), when one */
  actingSession: SessionRecord | null;
  actingOutcome: ActingOutcome;
  /** the acting_session_id the request named, verbatim */
  requestedActingSession: string | null;
}

export function attributionOf(acting: Acting): EventAttribution {
  return {
    actorId: acting.actorId,
    actorBasis: acting.actorBasis,
    causeActorId: acting.causeActorId,
    causeBasis: acting.causeBasis,
    credentialId: acting.credentialId,
  };
}

/**
 * Refuses an `acting_session_id` that contradicts the credential — before anything happens
 * (docs/concepts.md: that is validation, not a hint failing). Safe to call outside a transaction.
 */
export function checkActingSessionClaim(caller: Caller, requested: string | number | null | undefined): void {
  if (requested === null || requested === undefined || requested === '') return;
  const p = caller.principal;
  if (p.kind === 'session') {
    if (String(requested).replace(/^#/, '') !== String(p.sessionId)) {
      throw new WarrantError(
        'acting-session-mismatch',
        `A session token acts only as its own session (#${p.sessionId}); acting_session_id ${JSON.stringify(String(requested))} names another.`,
        {
          details: { token_session_id: p.sessionId },
        },
      );
    }
    return;
  }
  if (p.kind !== 'fleet') {
    throw new WarrantError(
      'acting-session-not-allowed',
      `acting_session_id is only for fleet-key callers; a ${p.kind === 'human' ? 'human is never an acting session' : `${p.kind} credential acts as itself`}.`,
      {
        details: { field: 'acting_session_id' },
      },
    );
  }
}

/**
 * Resolves who acts and on whose behalf (docs/concepts.md, docs/attribution.md): a session token is its session; a
 * fleet caller naming `acting_session_id` is that session, `declared`; a human is their own
 * cause (`delegated` over MCP); a client acts for itself.
 */
export async function resolveActing(
  w: WriteScope,
  caller: Caller,
  requested?: string | number | null,
  /** the caller's own session, when this transaction has already read it (not read again) */
  known: { self?: SessionRecord } = {},
): Promise<Acting> {
  checkActingSessionClaim(caller, requested);
  const { actor, basis } = callerActor(caller);
  const p = caller.principal;
  const requestedText = requested === null || requested === undefined || requested === '' ? null : String(requested);
  const base = { credentialId: caller.credentialId, requestedActingSession: requestedText };

  if (p.kind === 'session') {
    const self = known.self?.id === p.sessionId ? known.self : await sessionRowOnce(w.tx, w.ctx, p.sessionId);
    const actorId = await w.actorId(actor);
    return {
      ...base,
      actor,
      actorId,
      actorBasis: basis,
      causeActorId: self?.causeActorId ?? null,
      causeBasis: self?.causeBasis ? weakerBasis(self.causeBasis, basis) : null,
      actingSession: self,
      actingOutcome: 'authenticated',
    };
  }

  if (p.kind === 'fleet' && requestedText !== null) {
    const visibility = await visibilityOf(w.tx, w.ctx, caller);
    // a stored-style reference: an exact id or uid, no prefixes
    const r = await resolveRef(w.tx, w.ctx, visibility, requestedText, { allowPrefix: false });
    if (r.session) {
      const declared: ActorIdentity = { kind: 'session', sessionId: r.session.id };
      return {
        ...base,
        actor: declared,
        actorId: await w.actorId(declared),
        actorBasis: 'declared',
        // a cause reached through a declared actor stays declared (docs/attribution.md)
        causeActorId: r.session.causeActorId,
        causeBasis: r.session.causeActorId === null ? null : 'declared',
        actingSession: r.session,
        actingOutcome: 'declared',
      };
    }
  }

  const actorId = await w.actorId(actor);
  return {
    ...base,
    actor,
    actorId,
    actorBasis: basis,
    causeActorId: actorId,
    causeBasis: basis,
    actingSession: null,
    actingOutcome: p.kind === 'fleet' && requestedText !== null ? 'unresolved-acting-session' : 'no-acting-session',
  };
}

/** Housekeeping is `system` as both actor and cause (docs/attribution.md). */
export async function housekeepingActing(w: WriteScope): Promise<Acting> {
  const id = await w.actorId({ kind: 'system' });
  return {
    actor: { kind: 'system' },
    actorId: id,
    actorBasis: 'authenticated',
    causeActorId: id,
    causeBasis: 'authenticated',
    credentialId: null,
    actingSession: null,
    actingOutcome: 'no-acting-session',
    requestedActingSession: null,
  };
}

/** A change Warrant makes inside a session is `system`'s, for the session's cause (docs/attribution.md). */
export async function systemForSession(w: WriteScope, session: SessionRecord): Promise<EventAttribution> {
  return {
    actorId: await w.actorId({ kind: 'system' }),
    actorBasis: 'authenticated',
    causeActorId: session.causeActorId,
    causeBasis: session.causeBasis,
    credentialId: null,
  };
}
