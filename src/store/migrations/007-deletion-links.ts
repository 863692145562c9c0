import type { Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/**
 * docs/human-messages.md: for each deletion of a session that held human
 * messages, the sessions its record names (children, uncle-edge ends, its lineage parent), so
 * a hierarchy finds its deleted-session gaps by index instead of scanning every deletion.
 */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  await db.schema
    .createTable('deletion_links')
    .addColumn('session_id', d.idType, (c) => c.notNull())
    .addColumn('deletion_id', d.idType, (c) => c.notNull().references('session_deletions.id'))
    .addPrimaryKeyConstraint('deletion_links_pk', ['session_id', 'deletion_id'])
    .execute();
  // earlier deletions that held human messages
  const rows = await db.selectFrom('session_deletions').select(['id', 'lineage_parent_id', 'affected']).where('human_message_count', '>', 0).execute();
  for (const r of rows as { id: number; lineage_parent_id: number | null; affected: string }[]) {
    const ids = new Set<number>((JSON.parse(r.affected) as { id: number }[]).map((a) => Number(a.id)));
    if (r.lineage_parent_id !== null) ids.add(Number(r.lineage_parent_id));
    if (ids.size > 0)
      await db
        .insertInto('deletion_links')
        .values([...ids].map((session_id) => ({ session_id, deletion_id: Number(r.id) })))
        .execute();
  }
}
