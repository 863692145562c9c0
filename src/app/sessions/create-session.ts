import { createHash } from 'node:crypto';
import { weakerBasis, type ActBasis } from '../../core/basis.js';
import { WarrantError } from '../../core/errors.js';
import { resolveGenesis, type Genesis, type GenesisSource, type SchedulingClass } from '../../core/genesis.js';
import { deriveTitle, slugify } from '../../core/titles.js';
import { claimIdempotencyKey, completeIdempotencyKey, findIdempotencyKey } from '../../store/idempotency-repo.js';
import { LEGACY_PARENT_KEY } from '../../core/legacy-parent-key.js';
import { findSessionById, insertSession, insertSessionPrompt, type RuntimeOrigin, type SessionRecord } from '../../store/sessions-repo.js';
import { findUserByKey } from '../../store/users-repo.js';
import type { RunnerFacts } from '../../store/session-runners-repo.js';
import { authorize, visibilityOf } from '../access.js';
import { resolveActing, attributionOf, systemForSession } from '../acting.js';
import { WITNESS_SCOPE_MESSAGE, type Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { currentSessionToken } from '../credentials.js';
import { resolveSpawnParent, type ParentResolution } from '../parent-resolution.js';
import { sessionView, type SessionView } from '../views.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';
import { attachMint, attachRuntimeChild } from './attach-runtime.js';
import { canonicalJson } from '../audit.js';
import { captureHumanWords, type HumanWords } from '../human-messages/capture.js';
import { recordInitialConversation } from '../conversations/conversation-history.js';

export type { RunnerFacts };

const MAX_METADATA_BYTES = 16 * 1024;

export interface CreateSessionInput {
  title?: string | null;
  prompt?: string | null;
  originalPrompt?: string | null;
  agentRoot?: string | null;
  model?: string | null;
  starred?: boolean;
  messaging?: 'full' | 'reply-only';
  provider?: string | null;
  providerConversation?: string | null;
  customMetadata?: Record<string, unknown>;
  /** body `parent_session_id` (or its alias) */
  parentHint?: string | null;
  /** header `X-Warrant-Parent-Session` */
  parentHeader?: string | null;
  actingSessionId?: string | number | null;
  /** a roster key; only fleet and client creators may name one */
  owner?: string | null;
  genesis?: Genesis | null;
  schedulingClass?: SchedulingClass | null;
  attach?: boolean;
  /** what the attaching runner says about itself (only with attach); absent = not known to be a TTY */
  runner?: RunnerFacts | null;
  /** with `attach`: the runner writes inbox items into its agent (docs/api.md "Delivery into the agent") */
  delivery?: 'runner' | null;
  idempotencyKey?: string | null;
  /** the human's own words and where they typed them (the web forms; docs/human-messages.md) */
  humanInput?: HumanWords | null;
  /**
   * A child the caller's runtime runs (a built-in subagent, a nested agent): created with the
   * caller's session token only (runtime-children.ts), running without a token of its own.
   */
  runtime?: { origin: RuntimeOrigin; transcriptPath: string | null };
}

interface CreatorResolution {
  requested: string | null;
  resolvedId: number | null;
  basis: ActBasis | null;
  dropped: 'not-found' | null;
}

export interface CreateSessionResult {
  session: SessionView;
  parentResolution: ParentResolution;
  creatorResolution: CreatorResolution;
  sessionToken: string | null;
  /** a replay whose token was superseded since says so instead of returning it */
  sessionTokenSuperseded?: boolean;
  replayed: boolean;
}

/** What the idempotency store keeps: the response without the token (which is re-derived). */
interface StoredCreate {
  session_id: number;
  session: SessionView;
  activation: number | null;
  parent_resolution: ParentResolution;
  creator_resolution: CreatorResolution;
}

function requestHash(input: CreateSessionInput): string {
  const { idempotencyKey: _ignored, ...rest } = input;
  return createHash('sha256')
    .update(canonicalJson(JSON.parse(JSON.stringify(rest))))
    .digest('hex');
}

function genesisSourceFor(caller: Caller, parent: SessionRecord | null, declared: Genesis | null | undefined): GenesisSource {
  const p = caller.principal;
  const parentGenesis = parent ? { genesis: parent.genesis, schedulingClass: parent.schedulingClass } : null;
  if (declared && p.kind !== 'client') {
    throw new WarrantError('genesis-not-allowed', 'Only integration clients may declare a genesis; it is derived from who creates the session.', {
      details: { field: 'genesis' },
    });
  }
  switch (p.kind) {
    case 'human':
      return caller.surface === 'web' ? { kind: 'web_ui' } : caller.surface === 'slack' ? { kind: 'slack' } : { kind: 'human_token' };
    case 'session':
      return { kind: 'session_token', parent: parentGenesis! };
    case 'fleet':
      return { kind: 'fleet', parent: parentGenesis };
    case 'client':
      return { kind: 'client', declared: declared ?? null };
    case 'system':
      return { kind: 'system' };
    case 'witness':
      throw new WarrantError('witness-credential-scope', WITNESS_SCOPE_MESSAGE);
  }
}

/**
 * Creates a session (docs/concepts.md, docs/attribution.md): owner, spawn parent, genesis, creator and cause are
 * decided from the credential first and the hints second; an `Idempotency-Key` replay
 * returns the original response and records nothing.
 */
/**
 * The human's words a create carries: a human token outside MCP captures its prompt as
 * `cli.new_session`; the web UI and Slack ingress pass their own entry point (docs/human-messages.md).
 */
function wordsOf(caller: Caller, input: CreateSessionInput, given: HumanWords | undefined): HumanWords | null {
  if (given) return given;
  if (input.humanInput) return input.humanInput;
  if (caller.principal.kind !== 'human' || caller.surface !== 'rest') return null;
  const content = input.originalPrompt ?? input.prompt;
  return content ? { entryPoint: 'cli.new_session', content } : null;
}

interface CreateSessionOptions {
  humanWords?: HumanWords;
  /** more writes that must share the create's transaction (Slack's dedupe and thread map) */
  within?: (w: WriteScope, session: SessionRecord) => Promise<void>;
}

export async function createSession(
  ctx: AppContext,
  caller: Caller,
  input: CreateSessionInput,
  options: CreateSessionOptions = {},
): Promise<CreateSessionResult> {
  return inWriteTx(ctx, (w) => createSessionIn(w, caller, input, options));
}

function checkCreateInput(caller: Caller, input: CreateSessionInput): void {
  const metadata = input.customMetadata ?? {};
  const metadataText = JSON.stringify(metadata);
  if (Buffer.byteLength(metadataText, 'utf8') > MAX_METADATA_BYTES) {
    throw new WarrantError(
      'custom-metadata-too-large',
      `custom_metadata is ${Buffer.byteLength(metadataText, 'utf8')} bytes; the limit is ${MAX_METADATA_BYTES}.`,
      {
        details: { field: 'custom_metadata' },
      },
    );
  }
  if (input.owner && caller.principal.kind !== 'fleet' && caller.principal.kind !== 'client' && caller.principal.kind !== 'system') {
    throw new WarrantError(
      'invalid-request',
      "owner: only fleet and client creators may name an owner; a human owns what they create and a spawned session inherits its parent's owner.",
      {
        details: { field: 'owner' },
      },
    );
  }
  if (input.runner && !input.attach) {
    throw new WarrantError(
      'invalid-request',
      'runner: describes the runtime that attaches; send it with attach: true, or on POST /api/v1/sessions/{ref}/attach.',
      {
        details: { field: 'runner' },
      },
    );
  }
  if (input.delivery && !input.attach)
    throw new WarrantError('invalid-request', 'delivery: only with attach: true (it says who delivers into the attached runtime).', {
      details: { field: 'delivery' },
    });
}

/**
 * The one session creator, inside the caller's write transaction (a runtime child's create
 * shares its transaction with the check for an existing child: runtime-children.ts).
 */
export async function createSessionIn(
  w: WriteScope,
  caller: Caller,
  input: CreateSessionInput,
  options: CreateSessionOptions = {},
): Promise<CreateSessionResult> {
  checkCreateInput(caller, input);
  const ctx = w.ctx;
  const metadataText = JSON.stringify(input.customMetadata ?? {});
  const metadata = input.customMetadata ?? {};
  const db = w.tx;
  const key = input.idempotencyKey ?? null;
  const hash = key ? requestHash(input) : '';
  if (key) {
    if (caller.credentialId === null) throw new WarrantError('invalid-request', 'Idempotency-Key: needs a credential to scope the key to.');
    const prior = await findIdempotencyKey(db, caller.credentialId, key);
    if (prior) return replay(w, key, hash, prior);
    await ctx.seams?.afterRead?.('create-idempotency', null);
    const claimedBefore = await claimIdempotencyKey(db, { credentialId: caller.credentialId, key, requestHash: hash, now: w.now });
    if (claimedBefore) return replay(w, key, hash, claimedBefore);
  }

  await authorize(db, ctx, caller, 'create', null);
  if (input.attach && caller.principal.kind !== 'session') await authorize(db, ctx, caller, 'attach', null);

  const acting = await resolveActing(w, caller, input.actingSessionId);
  const p = caller.principal;
  const visibility = await visibilityOf(db, ctx, caller);

  // The owner: fixed first (a human owns what they create; an explicit owner), else inherited.
  let ownerUserId: number | null | undefined;
  if (p.kind === 'human') ownerUserId = p.userId;
  else if (p.kind === 'session') ownerUserId = acting.actingSession?.ownerUserId ?? null;
  else if (input.owner) {
    const user = await findUserByKey(db, input.owner);
    if (!user || user.removedAt) {
      throw new WarrantError('unknown-owner', `owner: no roster user has the key ${JSON.stringify(input.owner)}.`, { details: { field: 'owner' } });
    }
    ownerUserId = user.id;
  }

  const legacyRaw = metadata[LEGACY_PARENT_KEY];
  const legacyKey = legacyRaw === undefined || legacyRaw === null ? null : typeof legacyRaw === 'object' ? JSON.stringify(legacyRaw) : String(legacyRaw);
  const { resolution, parent } = await resolveSpawnParent(
    db,
    ctx,
    visibility,
    p.kind === 'session' ? acting.actingSession : null,
    { body: input.parentHint ?? null, header: input.parentHeader ?? null, legacyKey },
    ownerUserId,
  );
  if (ownerUserId === undefined) ownerUserId = parent ? parent.ownerUserId : null;

  const { genesis, schedulingClass } = resolveGenesis(genesisSourceFor(caller, parent, input.genesis), input.schedulingClass);

  // Creator (docs/attribution.md's table): only what the evidence proves.
  let creatorActorId: number | null = null;
  let creatorBasis: ActBasis | null = null;
  const creatorResolution: CreatorResolution = { requested: acting.requestedActingSession, resolvedId: null, basis: null, dropped: null };
  if (p.kind === 'fleet') {
    if (acting.actingOutcome === 'declared') {
      creatorActorId = acting.actorId;
      creatorBasis = 'declared';
      creatorResolution.resolvedId = acting.actingSession!.id;
      creatorResolution.basis = 'declared';
    } else if (acting.requestedActingSession !== null) {
      creatorResolution.dropped = 'not-found';
    }
  } else {
    creatorActorId = acting.actorId;
    creatorBasis = acting.actorBasis;
    creatorResolution.basis = acting.actorBasis;
    if (p.kind === 'session') creatorResolution.resolvedId = p.sessionId;
  }

  // The session's cause, fixed now and never changed (docs/attribution.md).
  let causeActorId: number | null;
  let causeBasis: ActBasis | null;
  if (p.kind === 'session') {
    const spawner = acting.actingSession;
    causeActorId = spawner?.causeActorId ?? null;
    causeBasis = spawner?.causeBasis ? weakerBasis(spawner.causeBasis, 'authenticated') : null;
  } else if (p.kind === 'fleet' && acting.actingOutcome === 'declared') {
    causeActorId = acting.actingSession!.causeActorId;
    causeBasis = causeActorId === null ? null : 'declared';
  } else if (p.kind === 'fleet' && parent) {
    causeActorId = parent.causeActorId;
    causeBasis = causeActorId === null ? null : 'declared';
  } else {
    causeActorId = acting.causeActorId;
    causeBasis = acting.causeBasis;
  }

  const runtimeParentId = input.runtime ? runtimeParentOf(caller, input) : null;
  const givenTitle = input.title?.trim() ? input.title.trim() : null;
  const derivedTitle = givenTitle ? null : deriveTitle(input.originalPrompt ?? input.prompt);
  const title = givenTitle ?? derivedTitle;

  let session = await insertSession(db, ctx.store, {
    uid: ctx.ids.uuid(),
    // the `created` event's, below: its seq is known, so it needs no update of the row
    firstEventSeq: 1,
    title,
    slug: title ? slugify(title) : null,
    status: input.attach ? 'running' : 'pending',
    ownerUserId,
    agentRoot: input.agentRoot ?? null,
    genesis,
    schedulingClass,
    parentSessionId: resolution.basis === 'legacy' ? null : resolution.resolvedId,
    parentBasis: resolution.basis,
    creatorActorId,
    creatorBasis,
    causeActorId,
    causeBasis,
    model: input.model ?? null,
    starred: input.starred ?? false,
    messaging: input.messaging ?? 'full',
    customMetadata: metadataText,
    provider: input.provider ?? null,
    providerConversation: input.providerConversation ?? null,
    ...(runtimeParentId !== null ? { runtime: { parentId: runtimeParentId, origin: input.runtime!.origin, conversationId: input.providerConversation! } } : {}),
    now: w.now,
  });
  const id = session.id;
  if (input.prompt != null || input.originalPrompt != null) {
    await insertSessionPrompt(db, id, input.prompt ?? null, input.originalPrompt ?? null);
  }
  w.created(id, 1);

  const attribution = { ...attributionOf(acting), causeActorId, causeBasis };
  await w.event(
    id,
    'created',
    {
      genesis,
      scheduling_class: schedulingClass,
      parent_session_id: resolution.resolvedId,
      parent_basis: resolution.basis,
      creator_basis: creatorBasis,
      via: caller.via,
      ...(runtimeParentId !== null ? { runtime_origin: input.runtime!.origin, runtime_parent_id: runtimeParentId } : {}),
      ...(acting.actingOutcome === 'declared' ? { acting_session_id: acting.actingSession!.id } : {}),
      // a declared creator that did not resolve was dropped (docs/attribution.md): the record says so
      ...(acting.actingOutcome === 'unresolved-acting-session' ? { acting_session_id: null, acting_session_unresolved: acting.requestedActingSession } : {}),
    },
    attribution,
  );
  // docs/messages.md: a session created in a provider conversation has bound it: its first history row
  await recordInitialConversation(w, caller, session, attribution, input.runtime?.transcriptPath ?? null);
  // capture is part of the act: same transaction, or the create fails (docs/human-messages.md)
  const words = wordsOf(caller, input, options.humanWords);
  if (words) await captureHumanWords(w, caller, session, words);
  if (options.within) await options.within(w, session);
  if (derivedTitle)
    await w.event(
      id,
      'title_generated',
      { new: derivedTitle, from: input.originalPrompt != null ? 'original_prompt' : 'prompt' },
      await systemForSession(w, session),
    );

  let sessionToken: string | null = null;
  if (input.attach) {
    const minted = await attachMint(w, session, acting.actorId, attribution, caller, { runner: input.runner ?? null, delivery: input.delivery ?? null });
    sessionToken = minted.token;
    session = minted.session;
  }
  if (runtimeParentId !== null) session = await attachRuntimeChild(w, session, attribution, runtimeParentId);

  // the metadata was just written from this text: read back as it will be stored, not re-read
  const view = await sessionView(db, ctx, session, await visibilityOf(db, ctx, caller), true, {
    metadata: JSON.parse(metadataText) as Record<string, unknown>,
  });
  w.finalView(view, session.ownerUserId);
  if (key) {
    const stored: StoredCreate = {
      session_id: id,
      session: view,
      activation: input.attach ? 1 : null,
      parent_resolution: resolution,
      creator_resolution: creatorResolution,
    };
    await completeIdempotencyKey(db, caller.credentialId!, key, id, JSON.stringify(stored));
  }
  return {
    session: view,
    parentResolution: resolution,
    creatorResolution,
    sessionToken,
    replayed: false,
  };
}

/** Only a session token creates a runtime child, always of its own session and conversation. */
function runtimeParentOf(caller: Caller, input: CreateSessionInput): number {
  const p = caller.principal;
  if (p.kind !== 'session' || !input.provider || !input.providerConversation || input.attach) {
    throw new WarrantError('invalid-request', "A runtime child is created by its parent's session token, in a provider conversation.");
  }
  return p.sessionId;
}

async function replay(
  w: WriteScope,
  key: string,
  hash: string,
  prior: { requestHash: string; response: string | null; sessionId: number | null },
): Promise<CreateSessionResult> {
  if (prior.requestHash !== hash) {
    throw new WarrantError(
      'idempotency-key-mismatch',
      `Idempotency-Key ${JSON.stringify(key)} was used with a different request; use a fresh key for a different session.`,
      {
        details: prior.sessionId !== null ? { session_id: prior.sessionId } : {},
      },
    );
  }
  if (prior.response === null)
    throw new WarrantError('idempotency-key-in-flight', `A request with Idempotency-Key ${JSON.stringify(key)} is still being processed; retry shortly.`);
  const stored = JSON.parse(prior.response) as StoredCreate;
  const session = await findSessionById(w.tx, w.ctx.store, stored.session_id);
  if (!session)
    throw new WarrantError('session-not-found', `The session created with Idempotency-Key ${JSON.stringify(key)} (#${stored.session_id}) was deleted since.`);
  let sessionToken: string | null = null;
  let superseded = false;
  if (stored.activation !== null) {
    sessionToken = session.activation === stored.activation ? await currentSessionToken(w.tx, w.ctx, session.id, stored.activation) : null;
    superseded = sessionToken === null;
  }
  return {
    session: stored.session,
    parentResolution: stored.parent_resolution,
    creatorResolution: stored.creator_resolution,
    sessionToken,
    ...(superseded ? { sessionTokenSuperseded: true } : {}),
    replayed: true,
  };
}
