import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/**
 * docs/attribution.md: every evidence table refuses rewriting in the database itself, so an
 * operator's UPDATE cannot quietly upgrade a claim. Session events go only with their
 * session (its deletion cascade); an uncle edge is inserted or removed (both are events),
 * never changed; a credential is written once, and only its revocation time is set, once.
 * On PostgreSQL TRUNCATE (which row triggers do not see) is refused on every evidence table.
 */
export const EVIDENCE_TABLES = [
  'audit_log',
  'audit_checkpoints',
  'session_events',
  'session_deletions',
  'deletion_links',
  'session_conversations',
  'session_uncles',
  'message_history',
  'human_messages',
  'human_message_withdrawals',
  'coverage_log',
  'tokens',
] as const;

const TOKEN_COLUMNS = ['id', 'kind', 'token_hash', 'label', 'user_id', 'client_name', 'session_id', 'activation', 'issued_by_actor_id', 'created_at'];

export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  const run = async (statements: string[]) => {
    for (const stmt of statements) await sql.raw(stmt).execute(db);
  };
  await run(d.immutableTableSql('session_events', { deleteAllowedWhenSessionGone: 'session_id' }));
  await run(d.immutableTableSql('session_uncles', { allowDelete: true }));
  await run(d.immutableTableSql('deletion_links', {}));
  await run(d.writeOnceColumnsSql('tokens', { fixed: TOKEN_COLUMNS, setOnce: ['revoked_at'] }));
  for (const table of EVIDENCE_TABLES) await run(d.refuseTruncateSql(table));
}
