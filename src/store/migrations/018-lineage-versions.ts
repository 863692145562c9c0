import { sql, type Kysely } from 'kysely';
import { LINEAGE_VERSION_BUCKETS } from '../lineage-versions-repo.js';

/**
 * docs/design/lineage.md "Cached walks": a version per bucket of session ids, bumped in the
 * transaction of every change a hierarchy walk reads. A cached walk is current while the
 * buckets of the sessions it read still hold the versions it was computed at.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lineage_versions')
    .addColumn('bucket', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // every bucket exists from the start, so a bump is a plain update (no upsert, no gaps)
  for (let from = 0; from < LINEAGE_VERSION_BUCKETS; from += 512) {
    const rows = Array.from({ length: Math.min(512, LINEAGE_VERSION_BUCKETS - from) }, (_, i) => sql`(${from + i}, 0)`);
    await sql`insert into lineage_versions (bucket, version) values ${sql.join(rows)}`.execute(db);
  }
}
