import { WarrantError } from '../../core/errors.js';
import { isActive } from '../../core/lifecycle.js';
import { normalizePrompt, PROMPT_DIGEST_PATTERN, promptFingerprint } from '../../core/prompt-match.js';
import { WITNESS_ISOLATIONS, type WitnessIsolation } from '../../core/terminal-witness.js';
import type { SessionRecord } from '../../store/sessions-repo.js';
import {
  closeWitness,
  consumeTurn,
  findTurn,
  findRunPrompt,
  findWitness,
  heardFromWitness,
  insertRunPrompt,
  insertTurn,
  matchPromptReport,
  revokeWitnessCredentials,
  unmatchedReportsEqualTo,
  upsertWitness,
} from '../../store/terminal-witness-repo.js';
import { authorize, requireSession, resolveRef } from '../access.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { generateToken, registerToken } from '../credentials.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';
import { recordHumanMessage } from './capture.js';

/**
 * docs/design/terminal-channel.md: the terminal witness, server side. A runner started with a
 * human token exchanges it for a witness credential bound to (session, activation, human);
 * with it, the runner reports each turn it relayed from its TTY, records a witnessed prompt
 * only when its reconstructed text equals an unconsumed reliable turn AND an unmatched prompt
 * report of the agent, and closes with its turn count. The agent's own session token can do
 * none of this.
 */

const NEEDS_HUMAN = (what: string) =>
  new WarrantError(
    'witness-needs-human-token',
    `${what} needs a human token (wrt_h_…) of a person who may act on the session: the witness speaks for that person.`,
  );

function requireHumanCaller(caller: Caller, what: string): { userId: number } {
  const p = caller.principal;
  if (p.kind !== 'human' || caller.surface !== 'rest') throw NEEDS_HUMAN(what);
  return { userId: p.userId };
}

function requireAttached(session: SessionRecord): void {
  if (!isActive(session.status) || session.activation < 1) {
    throw new WarrantError(
      'session-not-attached',
      `Session #${session.id} is ${session.status}: a runtime must attach first (POST /api/v1/sessions/{ref}/attach).`,
      {
        details: { status: session.status },
      },
    );
  }
}

interface MintedWitness {
  witnessToken: string;
  sessionId: number;
  activation: number;
}

/** `POST …/witness`: a witness credential for the session's current activation; an earlier one of that activation is revoked. */
export async function mintWitness(ctx: AppContext, caller: Caller, ref: string): Promise<MintedWitness> {
  const { userId } = requireHumanCaller(caller, 'A witness credential');
  return inWriteTx(ctx, async (w) => {
    const session = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'attach', session);
    requireAttached(session);
    const revoked = await revokeWitnessCredentials(w.tx, session.id, w.now);
    const token = generateToken(ctx, 'witness');
    const actorId = await w.actorId({ kind: 'human', userId });
    const credentialId = await registerToken(
      w.tx,
      token,
      {
        kind: 'witness',
        userId,
        sessionId: session.id,
        activation: session.activation,
        label: `witness of session #${session.id} activation ${session.activation}`,
        issuedByActorId: actorId,
      },
      w.now,
    );
    await upsertWitness(w.tx, { sessionId: session.id, activation: session.activation, credentialId, userId, now: w.now });
    const attribution = {
      actorId,
      actorBasis: 'authenticated' as const,
      causeActorId: actorId,
      causeBasis: 'authenticated' as const,
      credentialId: caller.credentialId,
    };
    await w.event(
      session.id,
      'witness_minted',
      { activation: session.activation, credential_id: credentialId, ...(revoked.length > 0 ? { revoked_credential_ids: revoked } : {}) },
      attribution,
    );
    return { witnessToken: token, sessionId: session.id, activation: session.activation };
  });
}

/**
 * The witness's own run: its session (a ref naming any other reads as out of scope, never as
 * "not found", so the credential learns nothing about other sessions), still on the
 * witness's activation, with the witness not yet closed.
 */
async function requireWitnessRun(w: WriteScope, caller: Caller, ref: string): Promise<{ session: SessionRecord; activation: number; userId: number }> {
  const p = caller.principal;
  if (p.kind !== 'witness')
    throw new WarrantError(
      'witness-credential-scope',
      "Only the runner's witness credential (wrt_t_…) may report terminal turns, witnessed prompts or the closing report.",
    );
  const r = await resolveRef(w.tx, w.ctx, 'all', ref);
  if (!r.session || r.session.id !== p.sessionId) {
    throw new WarrantError('witness-credential-scope', `This witness credential is for session #${p.sessionId} only.`, {
      details: { session_id: p.sessionId },
    });
  }
  if (r.session.activation !== p.activation) {
    throw new WarrantError(
      'token-superseded',
      `This witness credential belongs to activation ${p.activation} of session #${p.sessionId}; the current activation is ${r.session.activation}.`,
      {
        details: { token_activation: p.activation, current_activation: r.session.activation },
      },
    );
  }
  const witness = await findWitness(w.tx, r.session.id, p.activation);
  if (!witness || witness.credentialId !== caller.credentialId) throw new WarrantError('invalid-token', 'This witness credential was replaced by a newer one.');
  // a closed run takes nothing more, even from a credential minted after the close
  if (witness.closedAt !== null) throw new WarrantError('terminal-already-closed', `This run of session #${r.session.id} already sent its closing report.`);
  return { session: r.session, activation: p.activation, userId: p.userId };
}

function checkDigest(value: unknown): string {
  if (typeof value !== 'string' || !PROMPT_DIGEST_PATTERN.test(value)) {
    throw new WarrantError('invalid-request', 'digest: the lowercase hex SHA-256 of the normalized turn (64 characters).', { details: { field: 'digest' } });
  }
  return value;
}

function checkLength(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new WarrantError('invalid-request', 'length: the code points of the normalized turn, a positive integer (empty turns are not reported).', {
      details: { field: 'length' },
    });
  }
  return value;
}

function checkFlag(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new WarrantError('invalid-request', `${field}: true or false.`, { details: { field } });
  return value;
}

interface TurnReport {
  digest: unknown;
  length: unknown;
  reliable: unknown;
  pasted: unknown;
}

/** `POST …/terminal/turns`: one non-empty turn the runner relayed from its TTY (digest and length only). */
export async function reportTurn(ctx: AppContext, caller: Caller, ref: string, report: TurnReport): Promise<{ turnId: number }> {
  const digest = checkDigest(report.digest);
  const length = checkLength(report.length);
  const reliable = checkFlag('reliable', report.reliable);
  const pasted = checkFlag('pasted', report.pasted);
  return inWriteTx(ctx, async (w) => {
    const run = await requireWitnessRun(w, caller, ref);
    const turnId = await insertTurn(w.tx, { sessionId: run.session.id, activation: run.activation, digest, length, reliable, pasted, now: w.now });
    return { turnId };
  });
}

interface WitnessedPrompt {
  turnId: unknown;
  text: unknown;
  pasted: unknown;
  witnessIsolation: unknown;
}

/**
 * `POST …/terminal/prompts`: records the runner's reconstructed text as a human message
 * (`cli.terminal_prompt`) when, and only when, the turn is this run's, reliable, unconsumed
 * and equal to the text, and an unmatched prompt report of the agent equals it too. Turn and
 * report are consumed in the same transaction: the same words reported again record nothing.
 */
export async function witnessPrompt(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: WitnessedPrompt,
): Promise<{ humanMessageId: number; sessionId: number }> {
  if (typeof input.turnId !== 'number' || !Number.isSafeInteger(input.turnId) || input.turnId < 1) {
    throw new WarrantError('invalid-request', 'turn_id: the id …/terminal/turns answered.', { details: { field: 'turn_id' } });
  }
  const turnId = input.turnId;
  if (typeof input.text !== 'string' || normalizePrompt(input.text) === '') {
    throw new WarrantError('invalid-request', 'text: the turn as the runner reconstructed it, not empty.', { details: { field: 'text' } });
  }
  const text = input.text;
  checkFlag('pasted', input.pasted);
  if (typeof input.witnessIsolation !== 'string' || !(WITNESS_ISOLATIONS as readonly string[]).includes(input.witnessIsolation)) {
    throw new WarrantError('invalid-request', 'witness_isolation: "same-uid" or "other-uid".', { details: { field: 'witness_isolation' } });
  }
  const witnessIsolation = input.witnessIsolation as WitnessIsolation;
  const fingerprint = await promptFingerprint(text);
  return inWriteTx(ctx, async (w) => {
    const run = await requireWitnessRun(w, caller, ref);
    const turn = await findTurn(w.tx, turnId);
    if (!turn || turn.sessionId !== run.session.id || turn.activation !== run.activation) {
      throw new WarrantError('terminal-turn-not-found', `No turn ${turnId} in this run of session #${run.session.id}.`, { details: { turn_id: turnId } });
    }
    if (turn.humanMessageId !== null)
      throw new WarrantError('terminal-turn-consumed', `Turn ${turnId} already recorded a witnessed prompt; the same words record nothing twice.`, {
        details: { turn_id: turnId },
      });
    if (!turn.reliable)
      throw new WarrantError(
        'terminal-turn-unreliable',
        `Turn ${turnId} was edited or recalled (cursor keys, history, completion): what was typed cannot be reconstructed, so it is not witnessed.`,
        { details: { turn_id: turnId } },
      );
    if (turn.digest !== fingerprint.digest || turn.length !== fingerprint.length) {
      throw new WarrantError('terminal-turn-mismatch', `The text is not turn ${turnId} as the runner reported it (digest and length differ).`, {
        details: { turn_id: turnId },
      });
    }
    const [reportId] = await unmatchedReportsEqualTo(w.tx, run.session.id, run.activation, fingerprint.digest, fingerprint.length);
    if (reportId === undefined) {
      throw new WarrantError(
        'prompt-report-missing',
        `The agent reported no prompt equal to turn ${turnId} that is not already accounted for: the agent must have taken these words for them to be a prompt.`,
        {
          details: { turn_id: turnId },
        },
      );
    }
    const humanMessageId = await recordHumanMessage(w, { userId: run.userId, credentialId: caller.credentialId }, run.session, {
      entryPoint: 'cli.terminal_prompt',
      content: text,
      witnessIsolation,
    });
    // compare-and-set on both: a racing duplicate rolls the whole record back
    if (!(await consumeTurn(w.tx, turnId, humanMessageId, w.now)))
      throw new WarrantError('terminal-turn-consumed', `Turn ${turnId} already recorded a witnessed prompt.`, { details: { turn_id: turnId } });
    if (!(await matchPromptReport(w.tx, reportId, { kind: 'terminal_turn', turnId, now: w.now }))) {
      throw new WarrantError('prompt-report-missing', `The agent's report equal to turn ${turnId} was matched meanwhile; retry.`, {
        details: { turn_id: turnId },
      });
    }
    return { humanMessageId, sessionId: run.session.id };
  });
}

/** `POST …/terminal/close`: the closing report, with the number of turns reported; revokes the witness. */
export async function closeTerminal(ctx: AppContext, caller: Caller, ref: string, input: { turns: unknown }): Promise<{ closed: true }> {
  if (typeof input.turns !== 'number' || !Number.isSafeInteger(input.turns) || input.turns < 0) {
    throw new WarrantError('invalid-request', 'turns: how many turns this run reported with …/terminal/turns, a non-negative integer.', {
      details: { field: 'turns' },
    });
  }
  const turns = input.turns;
  return inWriteTx(ctx, async (w) => {
    const run = await requireWitnessRun(w, caller, ref);
    if (!(await closeWitness(w.tx, run.session.id, run.activation, turns, w.now))) {
      throw new WarrantError('terminal-already-closed', `This run of session #${run.session.id} already sent its closing report.`);
    }
    await revokeWitnessCredentials(w.tx, run.session.id, w.now, run.activation);
    const actorId = await w.actorId({ kind: 'human', userId: run.userId });
    await w.event(
      run.session.id,
      'terminal_closed',
      { activation: run.activation, turns },
      { actorId, actorBasis: 'authenticated', causeActorId: actorId, causeBasis: 'authenticated', credentialId: caller.credentialId },
    );
    return { closed: true };
  });
}

/**
 * `POST …/terminal/alive`: the runner's heartbeat. A live run whose witness falls silent
 * counts as ended without its closing report (core/terminal-witness.ts), so a runner killed
 * with SIGKILL leaves a gap instead of a session that reads witnessed forever. No event: a
 * heartbeat is a sign of life, not an act.
 */
export async function witnessAlive(ctx: AppContext, caller: Caller, ref: string): Promise<{ alive: true }> {
  return inWriteTx(ctx, async (w) => {
    const run = await requireWitnessRun(w, caller, ref);
    await heardFromWitness(w.tx, run.session.id, run.activation, w.now);
    return { alive: true };
  });
}

/**
 * `POST …/run-prompt`: `warrant run --prompt TEXT` records TEXT (`cli.run_prompt`) before the
 * child starts; the activation's first prompt report must then equal it.
 */
export async function recordRunPrompt(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: { text: unknown },
): Promise<{ humanMessageId: number; sessionId: number }> {
  const { userId } = requireHumanCaller(caller, 'A --prompt record');
  if (typeof input.text !== 'string' || normalizePrompt(input.text) === '') {
    throw new WarrantError('invalid-request', 'text: the prompt the person gave with --prompt, not empty.', { details: { field: 'text' } });
  }
  const text = input.text;
  const fingerprint = await promptFingerprint(text);
  return inWriteTx(ctx, async (w) => {
    const session = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'attach', session);
    requireAttached(session);
    const exists = () =>
      new WarrantError(
        'run-prompt-exists',
        `Activation ${session.activation} of session #${session.id} already has its --prompt; attach again for another run.`,
        { details: { activation: session.activation } },
      );
    if (await findRunPrompt(w.tx, session.id, session.activation)) throw exists();
    const humanMessageId = await recordHumanMessage(w, { userId, credentialId: caller.credentialId }, session, { entryPoint: 'cli.run_prompt', content: text });
    // compare-and-set: of two racing --prompt records for one activation, one lands (the other rolls back)
    if (!(await insertRunPrompt(w.tx, { sessionId: session.id, activation: session.activation, humanMessageId, ...fingerprint, now: w.now }))) throw exists();
    return { humanMessageId, sessionId: session.id };
  });
}
