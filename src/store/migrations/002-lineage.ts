import type { Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/**
 * Uncle edges (docs/concepts.md): "A inspected B and chose to queue or interrupt it"; and the inbox's
 * lease bookkeeping (docs/messages.md): how often an item was handed out, and when it was withdrawn.
 */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  await db.schema
    .createTable('session_uncles')
    .addColumn('session_id', d.idType, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('uncle_session_id', d.idType, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('basis', 'text', (c) => c.notNull())
    .addColumn('recorded_by_actor_id', d.idType, (c) => c.references('actors.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_uncles_pk', ['session_id', 'uncle_session_id'])
    .execute();
  await db.schema.createIndex('session_uncles_uncle_idx').on('session_uncles').columns(['uncle_session_id', 'session_id']).execute();

  // a re-leased item tells the runtime it was handed out before (never "new" twice)
  await db.schema
    .alterTable('inbox_items')
    .addColumn('lease_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('inbox_items').addColumn('leased_at', 'text').execute();
  await db.schema.alterTable('inbox_items').addColumn('withdrawn_at', 'text').execute();
  // housekeeping returns lapsed leases to pending
  await db.schema.createIndex('inbox_items_lease_idx').on('inbox_items').columns(['state', 'lease_expires_at']).execute();
}
