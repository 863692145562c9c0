import type { Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/**
 * Agent runtimes (docs/design/agent-runtimes.md):
 * - a session a runtime created for its built-in subagent or a nested agent records the runtime
 *   parent that created it (`runtime_parent_id`, the only session whose token may report its
 *   runtime, conversation and transcript besides its own), how (`runtime_origin`) and the
 *   conversation it was created for (`runtime_conversation_id`): one child per
 *   (parent, provider, conversation), enforced by a unique index;
 * - transcript records carry their conversation and byte offset in the provider's file, and
 *   whether the file restarted there;
 * - `transcript_positions`: the next byte offset expected per (session, provider, conversation).
 */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  const id = d.idType;
  // one column per statement: SQLite's ALTER TABLE adds one at a time
  await db.schema
    .alterTable('sessions')
    .addColumn('runtime_parent_id', id, (c) => c.references('sessions.id').onDelete('set null'))
    .execute();
  await db.schema.alterTable('sessions').addColumn('runtime_origin', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('runtime_conversation_id', 'text').execute();
  await db.schema
    .createIndex('sessions_runtime_child_unique')
    .on('sessions')
    .columns(['runtime_parent_id', 'provider', 'runtime_conversation_id'])
    .unique()
    .execute();

  await db.schema.alterTable('session_transcripts').addColumn('provider', 'text').execute();
  await db.schema.alterTable('session_transcripts').addColumn('conversation_id', 'text').execute();
  await db.schema.alterTable('session_transcripts').addColumn('byte_offset', 'bigint').execute();
  await db.schema
    .alterTable('session_transcripts')
    .addColumn('restarted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('transcript_positions')
    .addColumn('session_id', id, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('next_offset', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('transcript_positions_pk', ['session_id', 'provider', 'conversation_id'])
    .execute();
}
