import {
  checkReportedText,
  decideEstimate,
  reportedSourceOf,
  MAX_CONVERSATION_ID_LENGTH,
  MAX_PROVIDER_LENGTH,
  MAX_TRANSCRIPT_PATH_LENGTH,
  mergeConversations,
  type ConversationSource,
  type EstimateOutcome,
  type ReportedSource,
  type MergedConversation,
} from '../../core/conversations.js';
import { WarrantError } from '../../core/errors.js';
import type { Executor } from '../../store/dialect/dialect.js';
import { appendConversationRow, conversationRowsOf, lockSessionRow } from '../../store/conversations-repo.js';
import type { EventAttribution } from '../../store/events-repo.js';
import { findSessionById, type SessionRecord } from '../../store/sessions-repo.js';
import { findUsersByIds } from '../../store/users-repo.js';
import { authorize, reportingRuntimeParent, requireSession } from '../access.js';
import { attributionOf, resolveActing } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { lineageParents } from '../views.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';

/**
 * docs/messages.md: `provider_conversation` is where a session runs now;
 * every committed write that binds or replaces it appends a row to `session_conversations`
 * (re-observing appends nothing) whose source says who reported it (`reportedSourceOf`:
 * `runtime-reported` or `declared`), and `warrant conversations backfill` adds `estimated`
 * rows through the admin API. The server never opens a reported transcript
 * path: it is a string a client reported, stored as given.
 */
interface ConversationReport {
  provider: unknown;
  conversationId: unknown;
  transcriptPath?: unknown;
}

interface CheckedReport {
  provider: string;
  conversationId: string;
  transcriptPath: string | null;
}

/** A reported (provider, conversation, path), checked once for every report that names one. */
export function checkReport(input: ConversationReport): CheckedReport {
  const provider = checkReportedText(input.provider, 'provider', MAX_PROVIDER_LENGTH);
  const conversation = checkReportedText(input.conversationId, 'conversation_id', MAX_CONVERSATION_ID_LENGTH);
  const path = checkReportedText(input.transcriptPath, 'transcript_path', MAX_TRANSCRIPT_PATH_LENGTH, { optional: true });
  for (const [field, r] of [
    ['provider', provider],
    ['conversation_id', conversation],
    ['transcript_path', path],
  ] as const) {
    if (!r.ok) throw new WarrantError('invalid-request', `${r.reason}.`, { details: { field } });
  }
  return {
    provider: (provider as { value: string }).value,
    conversationId: (conversation as { value: string }).value,
    transcriptPath: (path as { value: string | null }).value,
  };
}

export function providerMismatch(session: SessionRecord, provider: string): WarrantError {
  return new WarrantError(
    'provider-mismatch',
    `Session #${session.id} runs on ${JSON.stringify(session.provider)}; a ${JSON.stringify(provider)} conversation cannot be its. Nothing was changed.`,
    {
      details: { session_id: session.id, session_provider: session.provider, reported_provider: provider },
    },
  );
}

/** The session's origin: its highest spawn ancestor over lineage parents (itself when it has none). */
async function originOf(db: Executor, ctx: AppContext, session: SessionRecord): Promise<number> {
  let current = session;
  const seen = new Set<number>([session.id]);
  // spawn parents are older, so the walk ends; the bound guards a corrupt store
  while (seen.size < 5000) {
    const parentId = (await lineageParents(db, ctx, [current])).get(current.id) ?? null;
    if (parentId === null || seen.has(parentId)) return current.id;
    const parent = await findSessionById(db, ctx.store, parentId);
    if (!parent) return current.id;
    seen.add(parentId);
    current = parent;
  }
  return current.id;
}

/**
 * Appends one row with the affiliation snapshot (title, owner, origin at this moment), so the
 * row stays attributable after the session is deleted.
 */
async function appendRow(
  w: WriteScope,
  session: SessionRecord,
  report: { provider: string | null; conversationId: string; transcriptPath: string | null },
  source: Exclude<ConversationSource, 'observed'>,
  attribution: EventAttribution,
): Promise<void> {
  await appendConversationRow(w.tx, {
    sessionId: session.id,
    provider: report.provider,
    conversationId: report.conversationId,
    transcriptPath: report.transcriptPath,
    observedAt: w.now,
    source,
    title: session.title,
    ownerUserId: session.ownerUserId,
    originId: await originOf(w.tx, w.ctx, session),
    recordedByActorId: attribution.actorId,
    actorBasis: attribution.actorBasis,
    credentialId: attribution.credentialId,
  });
}

/** A session created already bound to a conversation: its first history row, sourced by its creator (create's transaction). */
export async function recordInitialConversation(
  w: WriteScope,
  caller: Caller,
  session: SessionRecord,
  attribution: EventAttribution,
  transcriptPath: string | null = null,
): Promise<void> {
  if (session.providerConversation === null) return;
  await appendRow(
    w,
    session,
    { provider: session.provider, conversationId: session.providerConversation, transcriptPath },
    reportedSourceOf(caller.principal.kind, caller.surface),
    attribution,
  );
}

interface ReportResult {
  sessionId: number;
  provider: string;
  conversationId: string;
  transcriptPath: string | null;
  /** false: the session already ran in this conversation; nothing was appended */
  changed: boolean;
  previousConversation: string | null;
  /** the source of the row appended; null when nothing was */
  source: ReportedSource | null;
}

/**
 * `POST /api/v1/sessions/:ref/conversation`: the session itself (its token — the hooks and the
 * runner), fleet supervisors or admins — docs/concepts.md's `runtime` act. No MCP tool reports a
 * conversation; one that did would be recorded `declared`.
 */
export async function reportConversation(ctx: AppContext, caller: Caller, ref: string, input: ConversationReport): Promise<ReportResult> {
  const report = checkReport(input);
  return inWriteTx(ctx, async (w) => {
    let session = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'runtime-report', session);
    const acting = await resolveActing(w, caller, null);
    // a runtime parent reporting for its subagent's session: the event says whose runtime it was
    const runtimeParent = reportingRuntimeParent(caller, session);
    for (let attempt = 0; attempt < 8; attempt++) {
      if (session.provider !== null && session.provider !== report.provider) throw providerMismatch(session, report.provider);
      const previous = session.providerConversation;
      // re-observing the conversation it already runs in appends nothing
      if (previous === report.conversationId) return { sessionId: session.id, ...report, changed: false, previousConversation: previous, source: null };
      const changes = { providerConversation: report.conversationId, ...(session.provider === null ? { provider: report.provider } : {}) };
      if (await w.updateSession(session, changes)) {
        const fresh = (await findSessionById(w.tx, ctx.store, session.id))!;
        const attribution = attributionOf(acting);
        const source = reportedSourceOf(caller.principal.kind, caller.surface);
        await appendRow(w, fresh, report, source, attribution);
        await w.event(
          session.id,
          'conversation_changed',
          {
            provider: report.provider,
            old: previous,
            new: report.conversationId,
            transcript_path: report.transcriptPath,
            source,
            ...(runtimeParent !== null ? { runtime_parent_id: runtimeParent } : {}),
          },
          attribution,
        );
        return { sessionId: session.id, ...report, changed: true, previousConversation: previous, source };
      }
      const fresh = await findSessionById(w.tx, ctx.store, session.id);
      if (!fresh) throw new WarrantError('session-not-found', `Session #${session.id} was deleted meanwhile.`);
      session = fresh;
    }
    throw new WarrantError('store-unavailable', `Session #${session.id} kept changing; nothing was recorded. Retry.`);
  });
}

export interface ConversationView extends Omit<MergedConversation, 'ownerUserId'> {
  owner: string | null;
}

/** `GET /api/v1/sessions/:ref/conversations`: the rows merged per conversation (docs/messages.md). */
export async function listConversations(ctx: AppContext, caller: Caller, ref: string): Promise<{ session: SessionRecord; conversations: ConversationView[] }> {
  const db = ctx.store.kysely;
  const session = await requireSession(db, ctx, caller, ref);
  await authorize(db, ctx, caller, 'read', session);
  const merged = mergeConversations(
    await conversationRowsOf(db, session.id),
    session.providerConversation === null ? null : { provider: session.provider, conversationId: session.providerConversation },
  );
  const users = await findUsersByIds(
    db,
    merged.map((m) => m.ownerUserId).filter((o): o is number => o !== null),
  );
  return {
    session,
    conversations: merged.map(({ ownerUserId, ...m }) => ({ ...m, owner: ownerUserId === null ? null : (users.get(ownerUserId)?.key ?? null) })),
  };
}

interface EstimateInput extends ConversationReport {
  sessionId: unknown;
}

/**
 * `POST /api/v1/conversations/estimated` (admins only; `warrant conversations backfill` writes
 * through it). The check and the append run under the session row's lock, so two backfills
 * racing append one row; an estimate never overrides an observation.
 */
export async function recordEstimatedConversation(
  ctx: AppContext,
  caller: Caller,
  input: EstimateInput,
): Promise<{ outcome: EstimateOutcome; sessionId: number; conversationId: string }> {
  const report = checkReport(input);
  const ref = typeof input.sessionId === 'number' || typeof input.sessionId === 'string' ? String(input.sessionId) : '';
  if (ref === '') throw new WarrantError('invalid-request', 'session_id: required.', { details: { field: 'session_id' } });
  await authorize(ctx.store.kysely, ctx, caller, 'admin', null);
  return inWriteTx(ctx, async (w) => {
    const found = await requireSession(w.tx, ctx, caller, ref);
    await lockSessionRow(w.tx, found.id);
    // re-read under the lock: what the check sees is what the append depends on
    const session = (await findSessionById(w.tx, ctx.store, found.id))!;
    if (session.provider !== null && session.provider !== report.provider) throw providerMismatch(session, report.provider);
    const outcome = decideEstimate(await conversationRowsOf(w.tx, session.id, report.conversationId), session.providerConversation, report.conversationId);
    if (outcome === 'attributed') {
      const acting = await resolveActing(w, caller, null);
      const attribution = attributionOf(acting);
      await appendRow(w, session, report, 'estimated', attribution);
      w.audit({
        kind: 'conversation_estimated',
        at: w.now,
        session_id: session.id,
        provider: report.provider,
        conversation_id: report.conversationId,
        actor_id: attribution.actorId,
        actor_basis: attribution.actorBasis,
        credential_id: attribution.credentialId,
      });
    }
    return { outcome, sessionId: session.id, conversationId: report.conversationId };
  });
}
