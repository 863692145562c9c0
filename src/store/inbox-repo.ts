import type { ActBasis } from '../core/basis.js';
import type { Executor } from './dialect/dialect.js';

export type InboxKind = 'follow_up' | 'enqueued' | 'agent_message' | 'parent_message' | 'control';
export type InboxMode = 'next_turn' | 'when_idle' | 'interrupt';
export type InboxState = 'pending' | 'leased' | 'delivered' | 'withdrawn' | 'expired';

export interface NewInboxItem {
  sessionId: number;
  kind: InboxKind;
  mode: InboxMode;
  content: string;
  details: Record<string, unknown>;
  senderActorId: number | null;
  senderBasis: ActBasis | null;
  senderSessionId: number | null;
  causeActorId: number | null;
  causeBasis: ActBasis | null;
  credentialId: number | null;
  now: string;
}

export async function insertInboxItem(db: Executor, item: NewInboxItem): Promise<number> {
  const row = await db
    .insertInto('inbox_items')
    .values({
      session_id: item.sessionId,
      kind: item.kind,
      mode: item.mode,
      content: item.content,
      details: JSON.stringify(item.details),
      sender_actor_id: item.senderActorId,
      sender_basis: item.senderBasis,
      sender_session_id: item.senderSessionId,
      cause_actor_id: item.causeActorId,
      cause_basis: item.causeBasis,
      credential_id: item.credentialId,
      state: 'pending',
      created_at: item.now,
      updated_at: item.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function countInboxItems(db: Executor, sessionId: number, kind?: InboxKind): Promise<number> {
  let q = db.selectFrom('inbox_items').select((eb) => eb.fn.countAll<number>().as('n')).where('session_id', '=', sessionId);
  if (kind) q = q.where('kind', '=', kind);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}
