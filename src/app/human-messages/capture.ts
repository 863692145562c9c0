import { WarrantError } from '../../core/errors.js';
import type { CaptureChannel } from '../../core/coverage.js';
import type { WitnessIsolation } from '../../core/terminal-witness.js';
import { findHumanMessageByInboxItem, insertHumanMessage, insertWithdrawal } from '../../store/human-messages-repo.js';
import type { InboxItemRecord } from '../../store/inbox-repo.js';
import type { Acting } from '../acting.js';
import type { SessionRecord } from '../../store/sessions-repo.js';
import { findUserById } from '../../store/users-repo.js';
import { keyedDigest } from '../audit.js';
import type { Caller } from '../caller.js';
import { currentChannelStates } from './coverage-state.js';
import type { WriteScope } from '../write-scope.js';

/** docs/human-messages.md: the entry points, each bound to the surface it can come from. */
const ENTRY_POINTS = {
  'web_ui.new_session': 'web_ui',
  'web_ui.quick_prompt': 'web_ui',
  'web_ui.chat_bubble': 'web_ui',
  'web_ui.follow_up': 'web_ui',
  'web_ui.enqueued_message': 'web_ui',
  'web_ui.interrupt': 'web_ui',
  'slack.channel_message': 'slack',
  'slack.dm': 'slack',
  'cli.new_session': 'cli',
  'cli.follow_up': 'cli',
  'cli.enqueued_message': 'cli',
  'cli.interrupt': 'cli',
  // docs/design/terminal-channel.md: typed at the agent terminal, witnessed by the runner
  'cli.terminal_prompt': 'cli',
  // `warrant run --prompt TEXT`: typed on the person's own command line
  'cli.run_prompt': 'cli',
} as const satisfies Record<string, CaptureChannel>;
export type EntryPoint = keyof typeof ENTRY_POINTS;

const SURFACE_OF_CHANNEL: Record<CaptureChannel, Caller['surface']> = { web_ui: 'web', slack: 'slack', cli: 'rest' };

export interface HumanWords {
  entryPoint: EntryPoint;
  /** the human's words, untouched (never a wrapper the UI or a machine composed) */
  content: string;
  inboxItemId?: number | null;
  slackPermalink?: string | null;
}

/**
 * Records a human message — keyed off the authenticated actor at the input boundary, never
 * off the text (docs/human-messages.md). Returns null when the act establishes no named human (a fleet key,
 * a session token, anything over MCP): those record nothing. Runs inside the act's own
 * transaction: if the record cannot be written, the act fails.
 */
export async function captureHumanWords(w: WriteScope, caller: Caller, session: SessionRecord, words: HumanWords): Promise<number | null> {
  const p = caller.principal;
  if (p.kind !== 'human' || caller.surface === 'mcp') return null;
  const channel = ENTRY_POINTS[words.entryPoint];
  if (SURFACE_OF_CHANNEL[channel] !== caller.surface) {
    throw new Error(`entry point ${words.entryPoint} cannot come through the ${caller.surface} surface`);
  }
  if (channel === 'web_ui' && w.ctx.mode !== 'multi-user') {
    // single-admin: the web's human is the configured admin, and only when that key resolves
    const states = await currentChannelStates(w.tx, w.ctx);
    if (!states.web_ui.instrumented) return null;
  }
  if (words.content.trim() === '') return null;
  return recordHumanMessage(w, { userId: p.userId, credentialId: caller.credentialId }, session, words);
}

/**
 * Writes the record, its event, its audit entry (a keyed digest, never the words) and the
 * live notice, for an author already established from a credential: a human token here, a
 * witness credential for a terminal prompt (docs/design/terminal-channel.md).
 */
export async function recordHumanMessage(
  w: WriteScope,
  by: { userId: number; credentialId: number | null },
  session: SessionRecord,
  words: HumanWords & { witnessIsolation?: WitnessIsolation | null },
): Promise<number> {
  const channel = ENTRY_POINTS[words.entryPoint];
  const author = await findUserById(w.tx, by.userId);
  if (!author || author.removedAt) throw new WarrantError('forbidden', 'The signed-in human is no longer on the roster.');
  const authorActorId = await w.actorId({ kind: 'human', userId: author.id });
  const digestKey = w.ctx.ids.bytes(32);
  const witnessIsolation = words.witnessIsolation ?? null;
  const id = await insertHumanMessage(w.tx, {
    sessionId: session.id,
    inboxItemId: words.inboxItemId ?? null,
    authorActorId,
    authorKey: author.key,
    channel,
    entryPoint: words.entryPoint,
    content: words.content,
    slackPermalink: words.slackPermalink ?? null,
    createdAt: w.now,
    digestKey: digestKey.toString('hex'),
    witnessIsolation,
  });
  const attribution = {
    actorId: authorActorId,
    actorBasis: 'authenticated' as const,
    causeActorId: authorActorId,
    causeBasis: 'authenticated' as const,
    credentialId: by.credentialId,
  };
  await w.event(
    session.id,
    'human_message',
    {
      human_message_id: id,
      entry_point: words.entryPoint,
      channel,
      inbox_item_id: words.inboxItemId ?? null,
      ...(witnessIsolation ? { witness_isolation: witnessIsolation } : {}),
    },
    attribution,
  );
  // the words never enter the log: a keyed digest proves them while the record exists
  w.audit({
    kind: 'human_message',
    at: w.now,
    human_message_id: id,
    session_id: session.id,
    author_actor_id: authorActorId,
    author_key: author.key,
    channel,
    entry_point: words.entryPoint,
    inbox_item_id: words.inboxItemId ?? null,
    content_hmac: keyedDigest(digestKey, words.content),
    ...(witnessIsolation ? { witness_isolation: witnessIsolation } : {}),
  });
  w.live({
    type: 'human_message_recorded',
    sessionId: session.id,
    ownerUserId: session.ownerUserId,
    payload: { session_id: session.id, human_message_id: id },
  });
  return id;
}

/** A human message that rode on a withdrawn inbox item keeps its record; the withdrawal is its own row. */
export async function recordWithdrawal(w: WriteScope, acting: Acting, item: InboxItemRecord): Promise<void> {
  const message = await findHumanMessageByInboxItem(w.tx, item.id);
  if (!message) return;
  await insertWithdrawal(w.tx, {
    humanMessageId: message.id,
    sessionId: message.sessionId,
    actorId: acting.actorId,
    actorBasis: acting.actorBasis,
    now: w.now,
  });
  w.audit({
    kind: 'human_message_withdrawn',
    at: w.now,
    human_message_id: message.id,
    session_id: message.sessionId,
    actor_id: acting.actorId,
    actor_basis: acting.actorBasis,
  });
  w.touch(message.sessionId);
}
