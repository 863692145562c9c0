import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/** Sessions, their side tables, actors, the roster, tokens, settings, events, the inbox. */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  const id = d.idType;

  await db.schema
    .createTable('actors')
    .addColumn('id', id, (c) => d.idColumn(c))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('actors_kind_ref_unique', ['kind', 'ref'])
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', id, (c) => d.idColumn(c))
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('slack_user_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('notes', 'text')
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('password_hash', 'text')
    .addColumn('removed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', id, (c) => d.idColumn(c))
    .addColumn('uid', sql.raw(d.byteOrderedText), (c) => c.notNull().unique())
    .addColumn('title', 'text')
    .addColumn('slug', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('owner_user_id', id, (c) => c.references('users.id'))
    .addColumn('agent_root', 'text')
    .addColumn('genesis', 'text', (c) => c.notNull())
    .addColumn('scheduling_class', 'text', (c) => c.notNull())
    .addColumn('parent_session_id', id, (c) => c.references('sessions.id').onDelete('set null'))
    .addColumn('parent_basis', 'text')
    .addColumn('creator_actor_id', id, (c) => c.references('actors.id'))
    .addColumn('creator_basis', 'text')
    .addColumn('cause_actor_id', id, (c) => c.references('actors.id'))
    .addColumn('cause_basis', 'text')
    .addColumn('model', 'text')
    .addColumn('starred', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('messaging', 'text', (c) => c.notNull().defaultTo('full'))
    .addColumn('custom_metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('provider', 'text')
    .addColumn('provider_conversation', 'text')
    .addColumn('activation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('stop_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failure_reason', 'text')
    .addColumn('event_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_parent_idx').on('sessions').column('parent_session_id').execute();
  await db.schema.createIndex('sessions_status_idx').on('sessions').columns(['status', 'id']).execute();
  await db.schema.createIndex('sessions_owner_idx').on('sessions').columns(['owner_user_id', 'id']).execute();
  // docs/concepts.md: the legacy parent key is read through an index on its extracted text value.
  await sql.raw(d.expressionIndexSql('sessions_legacy_router_idx', 'sessions', d.jsonTextFieldSql('custom_metadata', 'router_session_id'))).execute(db);

  await db.schema
    .createTable('session_prompts')
    .addColumn('session_id', id, (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
    .addColumn('prompt', 'text')
    .addColumn('original_prompt', 'text')
    .execute();

  await db.schema
    .createTable('session_transcripts')
    .addColumn('id', id, (c) => d.idColumn(c))
    .addColumn('session_id', id, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('record', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('session_transcripts_session_idx').on('session_transcripts').columns(['session_id', 'id']).execute();

  // Tokens are never deleted: every act keeps naming the credential it used.
  await db.schema
    .createTable('tokens')
    .addColumn('id', id, (c) => d.idColumn(c))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text')
    .addColumn('user_id', id, (c) => c.references('users.id'))
    .addColumn('client_name', 'text')
    .addColumn('session_id', id)
    .addColumn('activation', 'integer')
    .addColumn('issued_by_actor_id', id, (c) => c.references('actors.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('tokens_session_idx').on('tokens').columns(['session_id', 'activation']).execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('credential_id', id, (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('session_id', id)
    .addColumn('response', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['credential_id', 'key'])
    .execute();

  await db.schema
    .createTable('session_events')
    .addColumn('id', id, (c) => d.idColumn(c))
    .addColumn('session_id', id, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('actor_id', id, (c) => c.references('actors.id'))
    .addColumn('actor_basis', 'text')
    .addColumn('caused_by_actor_id', id, (c) => c.references('actors.id'))
    .addColumn('cause_basis', 'text')
    .addColumn('credential_id', id)
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('session_events_seq_unique', ['session_id', 'seq'])
    .execute();

  await db.schema
    .createTable('inbox_items')
    .addColumn('id', id, (c) => d.idColumn(c))
    .addColumn('session_id', id, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('sender_actor_id', id, (c) => c.references('actors.id'))
    .addColumn('sender_basis', 'text')
    .addColumn('sender_session_id', id)
    .addColumn('cause_actor_id', id, (c) => c.references('actors.id'))
    .addColumn('cause_basis', 'text')
    .addColumn('credential_id', id)
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('lease_expires_at', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('inbox_items_session_state_idx').on('inbox_items').columns(['session_id', 'state', 'id']).execute();

  await db.schema
    .createTable('counters')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('counters').values({ name: 'live_event', value: 0 }).execute();

  // The bounded backlog of live events (SSE replay by Last-Event-ID).
  await db.schema
    .createTable('live_events')
    // an integer primary key is SQLite's rowid: no second index to keep
    .addColumn('id', d.idType, (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('session_id', id)
    .addColumn('owner_user_id', id)
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // docs/attribution.md: written in the delete's own transaction; never pruned, never changed.
  await db.schema
    .createTable('session_deletions')
    .addColumn('id', id, (c) => d.idColumn(c))
    .addColumn('session_id', id, (c) => c.notNull())
    .addColumn('session_uid', 'text', (c) => c.notNull())
    .addColumn('last_title', 'text')
    .addColumn('deleted_at', 'text', (c) => c.notNull())
    .addColumn('actor_id', id, (c) => c.references('actors.id'))
    .addColumn('actor_basis', 'text')
    .addColumn('caused_by_actor_id', id, (c) => c.references('actors.id'))
    .addColumn('cause_basis', 'text')
    .addColumn('credential_id', id)
    .addColumn('owner_user_id', id)
    .addColumn('lineage_parent_id', id)
    .addColumn('via', 'text', (c) => c.notNull())
    .addColumn('affected', 'text', (c) => c.notNull())
    .addColumn('event_count', 'integer', (c) => c.notNull())
    .addColumn('human_message_count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('session_deletions_time_idx').on('session_deletions').column('deleted_at').execute();
  await db.schema.createIndex('session_deletions_uid_idx').on('session_deletions').column('session_uid').execute();
  for (const stmt of d.immutableTableSql('session_deletions', {})) await sql.raw(stmt).execute(db);

  await upAudit(db, d);
}

/** The hash-chained audit log (docs/attribution.md): appended last in each transaction, never changed. */
export async function upAudit(db: Kysely<any>, d: StoreDialect): Promise<void> {
  await db.schema
    .createTable('audit_log')
    // SQLite: `integer primary key` makes seq the rowid, so verify scans one b-tree in order
    .addColumn('seq', d.idType, (c) => c.primaryKey())
    .addColumn('entry', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  for (const stmt of d.immutableTableSql('audit_log', {})) await sql.raw(stmt).execute(db);
}
