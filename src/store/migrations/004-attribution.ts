import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/**
 * docs/attribution.md: the per-record keys of keyed digests, and signed audit checkpoints.
 * - `session_events.digest_key`: the random key of the HMAC that the event's audit entry
 *   carries instead of its details; it is deleted with the event (with its session), after
 *   which the log still proves the event existed but its details can no longer be guessed.
 * - `session_deletions.digest_key`: the same for the deletion record's last title.
 * - `audit_checkpoints`: Ed25519-signed notes over the chain head; immutable like the log.
 */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  await db.schema.alterTable('session_events').addColumn('digest_key', 'text').execute();
  // the deletion record's own key: its log entry carries a digest of the last title, not the title
  await db.schema.alterTable('session_deletions').addColumn('digest_key', 'text').execute();

  await db.schema
    .createTable('audit_checkpoints')
    .addColumn('id', d.idType, (c) => d.idColumn(c))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('signed_at', 'text', (c) => c.notNull())
    .addColumn('key_name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addUniqueConstraint('audit_checkpoints_seq_key_unique', ['seq', 'key_hash'])
    .execute();
  for (const stmt of d.immutableTableSql('audit_checkpoints', {})) await sql.raw(stmt).execute(db);
}
