import { createHash } from 'node:crypto';
import { WarrantError } from '../../core/errors.js';
import { isActive } from '../../core/lifecycle.js';
import {
  checkEnvelope,
  CONVERSATION_REF_PREFIX,
  MESSAGE_ID_PREFIX,
  MINTED_REF_PREFIX,
  retryContent,
  type EnvelopeInput,
  type ValidEnvelope,
} from '../../core/message-envelope.js';
import { decideSend, messageRefusal, type OriginalFacts, type SendFacts } from '../../core/message-refusals.js';
import { permissionFor } from '../../core/permissions.js';
import { isKnownRollback, isStoreUnavailableError } from '../../store/store-errors.js';
import { findHumanMessageByInboxItem } from '../../store/human-messages-repo.js';
import { findInboxItem } from '../../store/inbox-repo.js';
import {
  adjustHeldMessages,
  countReclaimable,
  findMessage,
  findMessageBySenderRef,
  findMessagesByInboxItems,
  findReplyTo,
  insertMessage,
  type MessageRecord,
  type NewMessage,
} from '../../store/messages-repo.js';
import { findSessionById, findSessionsByIds, type SessionRecord } from '../../store/sessions-repo.js';
import { isVisible, resolveRef, sessionRowOnce, visibilityOf, type Visibility } from '../access.js';
import { checkActingSessionClaim, resolveActing } from '../acting.js';
import { canonicalJson, newRecordKey, sha256Hex } from '../audit.js';
import { permissionKind, type Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { addInboxItem } from '../inbox/inbox-items.js';
import { actorViews } from '../views.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';
import { heldAndCapacity, reclaimForCapacity } from './message-retention.js';
import { receiptOf, type MessageReceipt } from './message-views.js';

/**
 * `POST /api/v1/messages`, MCP `send_message`, `warrant message send` (docs/messages.md). One
 * transaction: resolve the sender, gather the facts (reads only), let `decideSend` pick the
 * receipt of a retry, the first refusal of the table, or acceptance — and only then write
 * the inbox item and the envelope. A commit whose result is unknown is `outcome-unknown`.
 */
interface SendMessageInput extends EnvelopeInput {
  acting_session_id?: string | number | null;
}

interface SendMessageResult {
  receipt: MessageReceipt;
  /** true: a retry with the same ref and content; the original receipt, nothing delivered again */
  replayed: boolean;
}

const hex = (ctx: AppContext, bytes: number) => ctx.ids.bytes(bytes).toString('hex');

/** docs/concepts.md: session tokens send; the fleet key only as a declared acting session; nobody else. */
function authorizeSender(caller: Caller, actingSessionId: unknown): void {
  const declared = caller.principal.kind === 'fleet' && actingSessionId !== undefined && actingSessionId !== null && actingSessionId !== '';
  const verdict = permissionFor(permissionKind(caller), 'send-message', null, declared);
  if (!verdict.allowed) {
    const hint =
      caller.principal.kind === 'human'
        ? ' Humans follow up, enqueue or interrupt instead (human messages).'
        : caller.principal.kind === 'fleet'
          ? ' Name the session you send for in acting_session_id.'
          : '';
    throw new WarrantError('forbidden', `Not allowed: ${verdict.reason}.${hint}`, { details: { act: 'send-message' } });
  }
}

interface Sender {
  session: SessionRecord;
  basis: 'authenticated' | 'declared';
  tokenActivation: number | null;
}

async function resolveSender(w: WriteScope, caller: Caller, actingSessionId: string | number | null | undefined): Promise<Sender> {
  const p = caller.principal;
  if (p.kind === 'session') {
    const session = await sessionRowOnce(w.tx, w.ctx, p.sessionId);
    if (!session) throw new WarrantError('session-not-live', 'The session this token belongs to no longer exists.');
    return { session, basis: 'authenticated', tokenActivation: p.activation };
  }
  // the fleet: a stored-style reference (exact id or uid), like every declared acting session
  const r = await resolveRef(w.tx, w.ctx, 'all', String(actingSessionId), { allowPrefix: false });
  if (!r.session) {
    throw new WarrantError(
      'session-not-found',
      `acting_session_id ${JSON.stringify(String(actingSessionId))} names no session; a message needs the session it is sent for.`,
      { details: { field: 'acting_session_id' } },
    );
  }
  return { session: r.session, basis: 'declared', tokenActivation: null };
}

/** Who sent an inbox item that no session sent (docs/messages.md). */
async function operatorOrigin(
  w: WriteScope,
  item: { id: number; senderActorId: number | null },
): Promise<Extract<OriginalFacts, { kind: 'operator' }>['origin']> {
  const actor = item.senderActorId === null ? null : ((await actorViews(w.tx, w.ctx, [item.senderActorId], 'all')).get(item.senderActorId) ?? null);
  const captured = actor?.kind === 'human' ? await findHumanMessageByInboxItem(w.tx, item.id) : null;
  return { kind: 'operator', client: captured ? captured.channel : null, actor: { kind: actor?.kind ?? 'system', ref: actor?.ref ?? null } };
}

function messageOriginal(m: MessageRecord, now: Map<number, SessionRecord>): OriginalFacts {
  if (m.reclaimedAt !== null) return { kind: 'not-found', reclaimed: true };
  return {
    kind: 'session-sent',
    id: m.id,
    messageId: m.id,
    sourceSessionId: m.sourceSessionId,
    targetSessionId: m.targetSessionId,
    delivered: m.state === 'delivered',
    deadline: m.deadline,
    conversationRef: m.conversationRef,
    sourceConversationAtSend: m.sourceConversation,
    targetConversationAtSend: m.targetConversation,
    sourceConversationNow: now.get(m.sourceSessionId)?.providerConversation ?? null,
    targetConversationNow: now.get(m.targetSessionId)?.providerConversation ?? null,
  };
}

/** What `reply_to` names, as the caller may see it. */
async function gatherOriginal(w: WriteScope, visibility: Visibility, replyTo: NonNullable<ValidEnvelope['replyTo']>): Promise<OriginalFacts> {
  const sessionsNow = async (ids: number[]) => new Map((await findSessionsByIds(w.tx, w.ctx.store, ids)).map((s) => [s.id, s]));
  if (replyTo.kind === 'message') {
    const m = await findMessage(w.tx, replyTo.id);
    if (!m) return { kind: 'not-found', reclaimed: false };
    return messageOriginal(m, await sessionsNow([m.sourceSessionId, m.targetSessionId]));
  }
  const item = await findInboxItem(w.tx, replyTo.id);
  if (!item) return { kind: 'not-found', reclaimed: false };
  const holder = await findSessionById(w.tx, w.ctx.store, item.sessionId);
  if (!holder || !isVisible(visibility, holder.ownerUserId)) return { kind: 'not-found', reclaimed: false };
  if (item.kind === 'agent_message') {
    // an agent message answered by its inbox item id is answered as the message itself
    const [m] = await findMessagesByInboxItems(w.tx, [item.id]);
    if (!m) return { kind: 'not-found', reclaimed: false };
    return messageOriginal(m, await sessionsNow([m.sourceSessionId, m.targetSessionId]));
  }
  if (item.senderSessionId === null) return { kind: 'operator', origin: await operatorOrigin(w, item) };
  const now = await sessionsNow([item.senderSessionId, item.sessionId]);
  return {
    kind: 'session-sent',
    id: String(item.id),
    messageId: null,
    sourceSessionId: item.senderSessionId,
    targetSessionId: item.sessionId,
    delivered: item.state === 'delivered',
    deadline: null,
    conversationRef: null,
    sourceConversationAtSend: item.senderConversation,
    targetConversationAtSend: item.targetConversation,
    sourceConversationNow: now.get(item.senderSessionId)?.providerConversation ?? null,
    targetConversationNow: now.get(item.sessionId)?.providerConversation ?? null,
  };
}

async function gatherTarget(
  w: WriteScope,
  visibility: Visibility,
  to: string | null,
  original: OriginalFacts | null,
): Promise<{ facts: SendFacts['target']; session: SessionRecord | null }> {
  if (to !== null) {
    const r = await resolveRef(w.tx, w.ctx, visibility, to);
    return r.session
      ? { facts: { kind: 'found', sessionId: r.session.id, archived: r.session.status === 'archived' }, session: r.session }
      : { facts: { kind: 'not-found' }, session: null };
  }
  // a reply without `to` goes to the original's sender
  if (original?.kind !== 'session-sent') return { facts: { kind: 'unknown' }, session: null };
  const s = await findSessionById(w.tx, w.ctx.store, original.sourceSessionId);
  if (!s || !isVisible(visibility, s.ownerUserId)) return { facts: { kind: 'not-found' }, session: null };
  return { facts: { kind: 'found', sessionId: s.id, archived: s.status === 'archived' }, session: s };
}

async function attempt(
  ctx: AppContext,
  caller: Caller,
  envelope: ValidEnvelope,
  contentSha256: string,
  actingSessionId: string | number | null | undefined,
): Promise<SendMessageResult> {
  const messageId = MESSAGE_ID_PREFIX + hex(ctx, 16);
  let committing = false;
  try {
    return await inWriteTx(
      ctx,
      async (w) => {
        const sender = await resolveSender(w, caller, actingSessionId);
        const earlier = envelope.ref !== null ? await findMessageBySenderRef(w.tx, sender.session.id, envelope.ref) : null;
        // docs/messages.md: a retry always gets its receipt, before any other refusal
        if (earlier && earlier.contentSha256 === contentSha256) return { receipt: receiptOf(earlier), replayed: true };

        const visibility = await visibilityOf(w.tx, ctx, caller);
        const original = envelope.replyTo ? await gatherOriginal(w, visibility, envelope.replyTo) : null;
        const target = await gatherTarget(w, visibility, envelope.to, original);
        const { held, limit } = await heldAndCapacity(w.tx);
        const need = held + 1 - limit;
        const facts: SendFacts = {
          now: w.now,
          envelope,
          sender: {
            sessionId: sender.session.id,
            basis: sender.basis,
            messaging: sender.session.messaging,
            tokenActivation: sender.tokenActivation,
            currentActivation: sender.session.activation,
            live: isActive(sender.session.status),
          },
          sameRef: earlier ? { messageId: earlier.id, sameContent: false } : null,
          target: target.facts,
          original,
          existingReplyId: original?.kind === 'session-sent' ? await findReplyTo(w.tx, original.id) : null,
          capacity: { held, limit, reclaimable: need > 0 ? await countReclaimable(w.tx, need) : 0 },
        };
        const decision = decideSend(facts);
        if (decision.kind === 'refused') throw messageRefusal(decision.token, decision.message, decision.details);
        if (decision.kind === 'receipt') return { receipt: receiptOf(earlier!), replayed: true };
        await ctx.seams?.afterRead?.('message-send', target.session!.id, w.tx);

        // every check passed: from here on, writes
        await reclaimForCapacity(w, decision.reclaim);
        const acting = await resolveActing(w, caller, caller.principal.kind === 'fleet' ? actingSessionId : null, { self: sender.session });
        const conversationRef = decision.conversationRef ?? CONVERSATION_REF_PREFIX + hex(ctx, 16);
        const replyTo = original?.kind === 'session-sent' ? original.id : null;
        const item = await addInboxItem(w, {
          target: target.session!,
          kind: 'agent_message',
          mode: 'next_turn',
          content: envelope.payload,
          // what the warrant-message frame carries (core/inbox-frames.ts)
          details: { envelope: { message_id: messageId, reply_to: replyTo, conversation_ref: conversationRef, deadline: decision.deadline } },
          acting,
          expiresAt: decision.deadline,
          eventDetails: { message_id: messageId, ...(replyTo ? { reply_to: replyTo } : {}) },
        });
        // since they were read, the sender and the target only had their timelines appended to
        w.stillCurrent([sender.session, target.session!]);
        const message: NewMessage = {
          id: messageId,
          ref: envelope.ref ?? MINTED_REF_PREFIX + hex(ctx, 12),
          refMinted: envelope.ref === null,
          contentSha256,
          conversationRef,
          replyTo,
          sourceSessionId: sender.session.id,
          sourceBasis: sender.basis,
          sourceActivation: sender.tokenActivation ?? sender.session.activation,
          sourceConversation: sender.session.providerConversation,
          senderActorId: acting.actorId,
          causeActorId: acting.causeActorId,
          causeBasis: acting.causeBasis,
          credentialId: acting.credentialId,
          targetSessionId: target.session!.id,
          targetConversation: target.session!.providerConversation,
          inboxItemId: item.id,
          deadline: decision.deadline,
          payload: envelope.payload,
          payloadBytes: envelope.payloadBytes,
          payloadSha256: sha256Hex(Buffer.from(envelope.payload, 'utf8')),
          digestKey: newRecordKey(ctx.ids),
          acceptedAt: w.now,
        };
        await insertMessage(w.tx, message);
        // the held-messages counter is a row every send updates: taken after the chain lock,
        // so concurrent sends serialize only from there to COMMIT (PostgreSQL). There the lock,
        // the append and this update go out with the COMMIT: a failure of one of them is answered
        // with it, as a rollback (isKnownRollback), not a commit whose outcome is unknown
        w.hotRowUpdate((tx) => adjustHeldMessages(tx, 1));
        return { receipt: receiptOf(message), replayed: false };
      },
      {
        beforeCommit: async (tx) => {
          committing = true;
          await ctx.seams?.beforeCommit?.('message-send', tx);
        },
      },
    );
  } catch (error) {
    // a failure the server answered the COMMIT with (a held statement's, postgres-pipeline.ts)
    // rolled everything back: it is handled as a failure before the commit
    if (committing && !isKnownRollback(error)) {
      throw messageRefusal('outcome-unknown', `The commit of message ${messageId} was attempted and its result is not known.`, { message_id: messageId });
    }
    throw error;
  }
}

export async function sendMessage(ctx: AppContext, caller: Caller, input: SendMessageInput): Promise<SendMessageResult> {
  const checked = checkEnvelope(input);
  if (!checked.ok) throw messageRefusal('envelope-invalid', `${checked.field}: ${checked.reason}.`, { field: checked.field, reason: checked.reason });
  authorizeSender(caller, input.acting_session_id);
  checkActingSessionClaim(caller, input.acting_session_id);
  const contentSha256 = createHash('sha256')
    .update(canonicalJson(retryContent(checked.envelope)))
    .digest('hex');
  for (let round = 0; ; round++) {
    try {
      return await attempt(ctx, caller, checked.envelope, contentSha256, input.acting_session_id);
    } catch (error) {
      if (error instanceof WarrantError) throw error;
      // a concurrent send took the same ref or answered the same original first: decide again
      // over what committed (a receipt, ref-content-mismatch or reply-already-committed)
      if (ctx.store.isUniqueViolation(error) && round < 2) continue;
      if (isStoreUnavailableError(error) || ctx.store.isUniqueViolation(error)) {
        throw messageRefusal('store-unavailable', 'The store could not be used; nothing was written.');
      }
      throw error;
    }
  }
}
