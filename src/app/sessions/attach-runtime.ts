import { WarrantError } from '../../core/errors.js';
import type { EventAttribution } from '../../store/events-repo.js';
import { setRunnerDelivery } from '../../store/inbox-delivery-repo.js';
import { recordRunnerFacts, type RunnerFacts } from '../../store/session-runners-repo.js';
import { findSessionById, type SessionRecord } from '../../store/sessions-repo.js';
import { revokeWitnessCredentials } from '../../store/terminal-witness-repo.js';
import type { Caller } from '../caller.js';
import { mintSessionToken } from '../credentials.js';
import { retireStopItems } from '../inbox/agent-delivery.js';
import type { WriteScope } from '../write-scope.js';

// Attaching a runtime to a session: a new activation, and either a session token minted for the
// caller (attachMint) or, for a runtime child, none (its parent's token reports for it).

/**
 * Activation + 1, `attached` and `token_minted`, and the new token (docs/concepts.md). The
 * runner's facts, when it sent any, are kept for this activation (a TTY makes the hierarchy's
 * agent terminal a capture candidate: docs/design/terminal-channel.md).
 */
export async function attachMint(
  w: WriteScope,
  session: SessionRecord,
  callerActorId: number,
  attribution: EventAttribution,
  caller: Caller,
  options: { runner?: RunnerFacts | null; delivery?: 'runner' | null } = {},
): Promise<{ token: string; session: SessionRecord; credentialId: number }> {
  const activation = session.activation + 1;
  const ok = await w.updateSession(session, { status: 'running', activation, stopRequested: false });
  if (!ok) throw new WarrantError('invalid-transition', `Session #${session.id} changed while attaching; try again.`);
  // a stop asked of an earlier runtime that never reported its end is not this runtime's
  await retireStopItems(w, session, 'attached');
  // nor is its terminal witness (docs/design/terminal-channel.md): a new runtime mints its own
  await revokeWitnessCredentials(w.tx, session.id, w.now);
  const delivery = options.delivery ?? null;
  await setRunnerDelivery(w.tx, session.id, delivery === 'runner' ? activation : null);
  const minted = await mintSessionToken(w.tx, w.ctx, session.id, activation, callerActorId, w.now);
  const eventAttribution = { ...attribution, causeActorId: session.causeActorId, causeBasis: session.causeBasis };
  const runner = options.runner ?? null;
  if (runner) await recordRunnerFacts(w.tx, { sessionId: session.id, activation, runner, now: w.now });
  await w.event(
    session.id,
    'attached',
    { activation, ...(runner ? { runner: { tty: runner.tty } } : {}), ...(delivery ? { delivery } : {}) },
    eventAttribution,
  );
  await w.event(
    session.id,
    'token_minted',
    { activation, credential_id: minted.credentialId, recipient: { actor_id: callerActorId, credential_id: caller.credentialId, via: caller.via } },
    eventAttribution,
  );
  const fresh = (await findSessionById(w.tx, w.ctx.store, session.id))!;
  return { token: minted.token, session: fresh, credentialId: minted.credentialId };
}

/**
 * A runtime child taken (again) by its parent's runtime: `running`, activation + 1 (a token
 * someone minted for it earlier is superseded), an `attached` event saying whose runtime —
 * and no token: the parent's token reports for it (docs/design/agent-runtimes.md).
 */
export async function attachRuntimeChild(
  w: WriteScope,
  session: SessionRecord,
  attribution: EventAttribution,
  runtimeParentId: number,
): Promise<SessionRecord> {
  const activation = session.activation + 1;
  const ok = await w.updateSession(session, { status: 'running', activation, stopRequested: false });
  if (!ok) throw new WarrantError('invalid-transition', `Session #${session.id} changed while attaching; try again.`);
  await w.event(
    session.id,
    'attached',
    { activation, runtime_parent_id: runtimeParentId, runtime_origin: session.runtimeOrigin },
    { ...attribution, causeActorId: session.causeActorId, causeBasis: session.causeBasis },
  );
  return (await findSessionById(w.tx, w.ctx.store, session.id))!;
}
