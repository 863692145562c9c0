import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/** Human messages (docs/human-messages.md): immutable records, withdrawals as their own rows, the coverage log. */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  await db.schema
    .createTable('human_messages')
    .addColumn('id', d.idType, (c) => d.idColumn(c))
    .addColumn('session_id', d.idType, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('inbox_item_id', d.idType)
    .addColumn('author_actor_id', d.idType, (c) => c.notNull().references('actors.id'))
    .addColumn('author_key', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('entry_point', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('slack_permalink', 'text')
    // docs/attribution.md: the per-record key of the audit log's keyed digest, deleted with the record
    .addColumn('digest_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('human_messages_session_idx').on('human_messages').columns(['session_id', 'id']).execute();
  for (const stmt of d.immutableTableSql('human_messages', { deleteAllowedWhenSessionGone: 'session_id' })) await sql.raw(stmt).execute(db);

  await db.schema
    .createTable('human_message_withdrawals')
    .addColumn('id', d.idType, (c) => d.idColumn(c))
    .addColumn('human_message_id', d.idType, (c) => c.notNull().unique().references('human_messages.id').onDelete('cascade'))
    .addColumn('session_id', d.idType, (c) => c.notNull())
    .addColumn('actor_id', d.idType, (c) => c.references('actors.id'))
    .addColumn('actor_basis', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  for (const stmt of d.immutableTableSql('human_message_withdrawals', { deleteAllowedWhenSessionGone: 'session_id' })) await sql.raw(stmt).execute(db);

  // Every change of a capture channel's state, so coverage can be judged over time (docs/human-messages.md).
  await db.schema
    .createTable('coverage_log')
    .addColumn('id', d.idType, (c) => d.idColumn(c))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('instrumented', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('coverage_log_channel_idx').on('coverage_log').columns(['channel', 'id']).execute();
  for (const stmt of d.immutableTableSql('coverage_log', {})) await sql.raw(stmt).execute(db);

  // Slack retries deliveries: de-duplicate by event id, and by message (app_mention and
  // message events can both carry one message).
  await db.schema
    .createTable('slack_deliveries')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  // A thread whose root started a session: replies in it are follow-ups to that session.
  await db.schema
    .createTable('slack_threads')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('thread_ts', 'text', (c) => c.notNull())
    .addColumn('session_id', d.idType, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('slack_threads_pk', ['channel', 'thread_ts'])
    .execute();
}
