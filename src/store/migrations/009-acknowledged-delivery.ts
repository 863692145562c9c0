import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/**
 * Acknowledged delivery into an agent (docs/api.md "Delivery into the agent"):
 * - an inbox item a runner wrote into its agent is `written` until the agent's prompt report
 *   matches it: when it was written, the deadline after which it reads `undelivered`, and the
 *   digest and code-point length of the frame text that was written (core/prompt-match.ts);
 * - a stop's `control` item is `retired` when the runtime it was for ends (`retired_at`);
 * - a session whose current activation's runner owns delivery (`delivery: "runner"` on attach).
 * States are plain text in both dialects (no check constraint to widen).
 */
export async function up(db: Kysely<any>, _d: StoreDialect): Promise<void> {
  await db.schema.alterTable('inbox_items').addColumn('written_at', 'text').execute();
  await db.schema.alterTable('inbox_items').addColumn('written_deadline', 'text').execute();
  await db.schema.alterTable('inbox_items').addColumn('frame_digest', 'text').execute();
  await db.schema.alterTable('inbox_items').addColumn('frame_length', 'integer').execute();
  await db.schema.alterTable('inbox_items').addColumn('retired_at', 'text').execute();
  // housekeeping finds writes past their deadline; a write leaves the index when it settles
  await db.schema
    .createIndex('inbox_items_written_deadline_idx')
    .on('inbox_items')
    .column('written_deadline')
    .where(sql.ref('state'), '=', sql.lit('written'))
    .execute();
  // a prompt report looks up the session's written items by digest
  await db.schema
    .createIndex('inbox_items_written_digest_idx')
    .on('inbox_items')
    .columns(['session_id', 'frame_digest'])
    .where(sql.ref('frame_digest'), 'is not', null)
    .execute();
  await db.schema.alterTable('sessions').addColumn('runner_delivery_activation', 'integer').execute();
}
