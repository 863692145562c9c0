import { WarrantError } from '../../core/errors.js';
import { isMessageId } from '../../core/message-envelope.js';
import { findMessage, findReplyTo, type MessageRecord } from '../../store/messages-repo.js';
import { permissionKind, type Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { messageView, type MessageView } from './message-views.js';

/**
 * docs/concepts.md: an agent message is readable by its sender, its target and
 * admins. A session token reads the messages its session sent or received (any activation:
 * a superseded token can still read); the fleet key reads what it sent as a declared acting
 * session; a human admin reads all. Anyone else gets the 404 of a message that does not exist.
 */
export function mayReadMessage(caller: Caller, m: Pick<MessageRecord, 'sourceSessionId' | 'targetSessionId' | 'sourceBasis'>): boolean {
  const p = caller.principal;
  if (p.kind === 'session') return p.sessionId === m.sourceSessionId || p.sessionId === m.targetSessionId;
  if (p.kind === 'fleet') return m.sourceBasis === 'declared';
  return permissionKind(caller) === 'admin';
}

function notFound(id: string): WarrantError {
  return new WarrantError('message-not-found', `No message ${JSON.stringify(id)} that you may read.`, { details: { message_id: id } });
}

/** `GET /api/v1/messages/:id`: the envelope, its effective state and its payload (until reclaimed). */
export async function readMessage(ctx: AppContext, caller: Caller, id: string): Promise<MessageView> {
  const text = id.trim();
  if (!isMessageId(text)) throw notFound(id);
  const db = ctx.store.kysely;
  const m = await findMessage(db, text);
  if (!m || !mayReadMessage(caller, m)) throw notFound(id);
  return messageView(m, ctx.clock.now().toISOString(), await findReplyTo(db, m.id));
}
