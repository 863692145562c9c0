import { latestMessagesOfSession } from '../../store/messages-repo.js';
import { findSessionsByIds } from '../../store/sessions-repo.js';
import { authorize, isVisible, requireSession, visibilityOf } from '../access.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { messageView, type MessageView } from './message-views.js';
import { mayReadMessage } from './read-message.js';

/** How many of a session's newest messages one read returns at most. */
const MAX_SESSION_MESSAGES = 200;

/** One agent message as a session's page lists it: from this session's side. */
export interface SessionMessage {
  /** the envelope and state; `payload` is null when withheld or reclaimed */
  message: MessageView;
  direction: 'sent' | 'received';
  /** the session at the other end, or null when the caller may not see it */
  other: { id: number; title: string | null } | null;
  /** the caller may see that the message exists but not read its words (docs/concepts.md) */
  payloadWithheld: boolean;
}

/**
 * The agent messages a session sent and received, oldest first (the newest `limit`). Listing
 * needs read access to the session; each payload is returned only to a caller who may read
 * that message — its sender, its target, an admin — the same rule as `GET /api/v1/messages/:id`.
 * A session at the other end the caller may not see is not named.
 */
export async function listSessionMessages(ctx: AppContext, caller: Caller, ref: string, input: { limit?: number } = {}): Promise<SessionMessage[]> {
  const db = ctx.store.kysely;
  const session = await requireSession(db, ctx, caller, ref);
  await authorize(db, ctx, caller, 'read', session);
  const limit = Math.min(Math.max(input.limit ?? 100, 1), MAX_SESSION_MESSAGES);
  const records = (await latestMessagesOfSession(db, session.id, limit)).reverse();
  const otherIds = records.map((m) => (m.sourceSessionId === session.id ? m.targetSessionId : m.sourceSessionId));
  const visibility = await visibilityOf(db, ctx, caller);
  const others = new Map((await findSessionsByIds(db, ctx.store, otherIds)).filter((s) => isVisible(visibility, s.ownerUserId)).map((s) => [s.id, s]));
  const replied = new Map(records.filter((m) => m.replyTo !== null).map((m) => [m.replyTo!, m.id]));
  const now = ctx.clock.now().toISOString();
  return records.map((m, i) => {
    const readable = mayReadMessage(caller, m);
    const view = messageView(m, now, replied.get(m.id) ?? null);
    const other = others.get(otherIds[i]!);
    return {
      message: readable ? view : { ...view, payload: null },
      direction: m.sourceSessionId === session.id ? 'sent' : 'received',
      other: other ? { id: other.id, title: other.title } : null,
      payloadWithheld: !readable && m.payload !== null,
    };
  });
}
