import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';
import { legacyKeyProbeSql } from '../legacy-key-sql.js';

/**
 * The legacy key of legacy-basis sessions, indexed by its probe (the id or the bare
 * lowercase uid every spelling reduces to): a walk level looks each senior up twice in this
 * index instead of once per spelling in the plain key index. Still derived from the key.
 */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  await sql.raw(`create index if not exists sessions_legacy_probe_idx on sessions (${legacyKeyProbeSql(d, '')}) where parent_basis = 'legacy'`).execute(db);
}
