import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';
import { extendTree } from '../audit-tree-repo.js';

/**
 * docs/audit-log.md "Merkle tree and proofs": the stored subtree hashes of the log's RFC 9162
 * Merkle tree, filled for the entries an existing log already has; checkpoints now carry the
 * tree's root (`root_hash`, hex; null on checkpoints signed over the chain head before).
 */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  await db.schema
    .createTable('audit_tree_nodes')
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('idx', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_tree_nodes_pk', ['level', 'idx'])
    .execute();
  // a subtree's hash never changes: refuse UPDATE (rows are only ever added)
  for (const stmt of d.immutableTableSql('audit_tree_nodes', { allowDelete: true })) await sql.raw(stmt).execute(db);
  await db.schema.alterTable('audit_checkpoints').addColumn('root_hash', 'text').execute();
  // Kysely<any> here: the migration runs before the typed schema exists
  await extendTree(db as never);
}
