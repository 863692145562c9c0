import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/**
 * docs/messages.md: agent messages, their history, and provider conversation history.
 * - `agent_messages`: the envelope of every message ever accepted. The row stays (it is the
 *   message graph: ids, refs and replies stay unique for good); retention only reclaims its
 *   payload and the payload's digest key. No foreign keys to sessions: a message outlives a
 *   deleted session, like a deletion record.
 * - `message_history`: one immutable row per terminal message, without the payload (exported
 *   as JSON Lines, mirrored into the audit log).
 * - `session_conversations`: append-only, one row per committed binding (observed) or
 *   backfilled estimate, with an affiliation snapshot so it stays attributable after the
 *   session is deleted.
 * - inbox items learn their deadline (an agent message expires) and the provider conversations
 *   of sender and target at send time (the reply rule also applies to inbox items).
 */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  const id = d.idType;

  await db.schema
    .createTable('agent_messages')
    .addColumn('seq', id, (c) => d.idColumn(c))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('ref_minted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('content_sha256', 'text', (c) => c.notNull())
    .addColumn('conversation_ref', 'text', (c) => c.notNull())
    .addColumn('reply_to', 'text')
    .addColumn('source_session_id', id, (c) => c.notNull())
    .addColumn('source_basis', 'text', (c) => c.notNull())
    .addColumn('source_activation', 'integer', (c) => c.notNull())
    .addColumn('source_conversation', 'text')
    .addColumn('sender_actor_id', id, (c) => c.notNull().references('actors.id'))
    .addColumn('cause_actor_id', id, (c) => c.references('actors.id'))
    .addColumn('cause_basis', 'text')
    .addColumn('credential_id', id)
    .addColumn('target_session_id', id, (c) => c.notNull())
    .addColumn('target_conversation', 'text')
    .addColumn('inbox_item_id', id)
    .addColumn('deadline', 'text', (c) => c.notNull())
    .addColumn('payload', 'text')
    .addColumn('payload_bytes', 'integer', (c) => c.notNull())
    .addColumn('payload_sha256', 'text', (c) => c.notNull())
    .addColumn('digest_key', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text', (c) => c.notNull())
    .addColumn('terminal_at', 'text')
    .addColumn('terminal_reason', 'text')
    .addColumn('reclaimed_at', 'text')
    // docs/messages.md: a ref is unique per sender
    .addUniqueConstraint('agent_messages_sender_ref_unique', ['source_session_id', 'ref'])
    .execute();
  // docs/messages.md: at most one reply commits per original — the race is settled by this index
  await db.schema
    .createIndex('agent_messages_reply_to_unique')
    .on('agent_messages')
    .column('reply_to')
    .unique()
    .where(sql.ref('reply_to'), 'is not', null)
    .execute();
  // expiry: messages in flight by deadline, overall and per target inbox. Partial indexes: a
  // message leaves them when it settles, so they hold what is in flight, not all history.
  await db.schema
    .createIndex('agent_messages_in_flight_idx')
    .on('agent_messages')
    .column('deadline')
    .where(sql.ref('state'), '=', sql.lit('accepted'))
    .execute();
  await db.schema
    .createIndex('agent_messages_target_in_flight_idx')
    .on('agent_messages')
    .columns(['target_session_id', 'deadline'])
    .where(sql.ref('state'), '=', sql.lit('accepted'))
    .execute();
  await db.schema.createIndex('agent_messages_item_idx').on('agent_messages').column('inbox_item_id').execute();
  // retention: terminal messages still holding a payload, oldest first
  await db.schema
    .createIndex('agent_messages_reclaimable_idx')
    .on('agent_messages')
    .column('terminal_at')
    .where(sql<boolean>`reclaimed_at is null and terminal_at is not null`)
    .execute();

  await db.schema
    .createTable('message_history')
    .addColumn('seq', id, (c) => d.idColumn(c))
    .addColumn('message_id', 'text', (c) => c.notNull().unique())
    .addColumn('schema_version', 'integer', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('conversation_ref', 'text', (c) => c.notNull())
    .addColumn('reply_to', 'text')
    .addColumn('source_session_id', id, (c) => c.notNull())
    .addColumn('source_basis', 'text', (c) => c.notNull())
    .addColumn('source_activation', 'integer', (c) => c.notNull())
    .addColumn('source_conversation', 'text')
    .addColumn('target_session_id', id, (c) => c.notNull())
    .addColumn('target_conversation', 'text')
    .addColumn('deadline', 'text', (c) => c.notNull())
    .addColumn('payload_bytes', 'integer', (c) => c.notNull())
    .addColumn('payload_sha256', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text', (c) => c.notNull())
    .addColumn('terminal_at', 'text', (c) => c.notNull())
    .addColumn('terminal_reason', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .execute();
  for (const stmt of d.immutableTableSql('message_history', {})) await sql.raw(stmt).execute(db);

  await db.schema
    .createTable('session_conversations')
    .addColumn('id', id, (c) => d.idColumn(c))
    .addColumn('session_id', id, (c) => c.notNull())
    .addColumn('provider', 'text')
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('transcript_path', 'text')
    .addColumn('observed_at', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('owner_user_id', id)
    .addColumn('origin_id', id)
    .addColumn('recorded_by_actor_id', id, (c) => c.references('actors.id'))
    .addColumn('actor_basis', 'text')
    .addColumn('credential_id', id)
    .execute();
  await db.schema.createIndex('session_conversations_session_idx').on('session_conversations').columns(['session_id', 'conversation_id']).execute();
  for (const stmt of d.immutableTableSql('session_conversations', {})) await sql.raw(stmt).execute(db);

  await db.schema.alterTable('inbox_items').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('inbox_items').addColumn('sender_conversation', 'text').execute();
  await db.schema.alterTable('inbox_items').addColumn('target_conversation', 'text').execute();

  // messages holding a payload: the capacity check reads one row, not a count over the table
  await db.insertInto('counters').values({ name: 'agent_messages_held', value: 0 }).execute();
}
