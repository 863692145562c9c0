import type { ConversationRow, ConversationSource } from '../core/conversations.js';
import type { Executor } from './dialect/dialect.js';

/** docs/messages.md: `session_conversations`, append-only (immutable rows; they outlive their session). */
interface NewConversationRow {
  sessionId: number;
  provider: string | null;
  conversationId: string;
  transcriptPath: string | null;
  observedAt: string;
  source: ConversationSource;
  title: string | null;
  ownerUserId: number | null;
  originId: number | null;
  recordedByActorId: number | null;
  actorBasis: string | null;
  credentialId: number | null;
}

export async function appendConversationRow(db: Executor, row: NewConversationRow): Promise<number> {
  const inserted = await db
    .insertInto('session_conversations')
    .values({
      session_id: row.sessionId,
      provider: row.provider,
      conversation_id: row.conversationId,
      transcript_path: row.transcriptPath,
      observed_at: row.observedAt,
      source: row.source,
      title: row.title,
      owner_user_id: row.ownerUserId,
      origin_id: row.originId,
      recorded_by_actor_id: row.recordedByActorId,
      actor_basis: row.actorBasis,
      credential_id: row.credentialId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}

export async function conversationRowsOf(db: Executor, sessionId: number, conversationId?: string): Promise<ConversationRow[]> {
  let q = db
    .selectFrom('session_conversations')
    .select(['id', 'provider', 'conversation_id', 'transcript_path', 'observed_at', 'source', 'title', 'owner_user_id', 'origin_id'])
    .where('session_id', '=', sessionId);
  if (conversationId !== undefined) q = q.where('conversation_id', '=', conversationId);
  const rows = await q.orderBy('id').execute();
  return rows.map((r) => ({
    id: Number(r.id),
    provider: r.provider,
    conversationId: r.conversation_id,
    transcriptPath: r.transcript_path,
    observedAt: r.observed_at,
    source: r.source as ConversationSource,
    title: r.title,
    ownerUserId: r.owner_user_id === null ? null : Number(r.owner_user_id),
    originId: r.origin_id === null ? null : Number(r.origin_id),
  }));
}

/**
 * Takes the session row's lock until commit (PostgreSQL: a row lock from a no-op update;
 * SQLite: every write transaction already holds the database lock), so a check and the append
 * that depends on it cannot interleave with another (docs/messages.md: backfill is idempotent).
 */
export async function lockSessionRow(db: Executor, sessionId: number): Promise<boolean> {
  const r = await db
    .updateTable('sessions')
    .set((eb) => ({ version: eb.ref('version') }))
    .where('id', '=', sessionId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
