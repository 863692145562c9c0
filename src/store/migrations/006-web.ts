import type { Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/**
 * Web UI sign-in (docs/concepts.md). A web session's secret lives in the
 * cookie only; the store keeps its SHA-256 in a `tokens` row of kind `web` — the credential
 * every web act records — and the session's own facts here. One-time links and setup codes
 * are stored as digests, expire, and are single-use.
 */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  await db.schema
    .createTable('web_login_links')
    .addColumn('id', d.idType, (c) => d.idColumn(c))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('purpose', 'text', (c) => c.notNull()) // 'sign-in' | 'setup'
    .addColumn('user_id', d.idType, (c) => c.references('users.id'))
    .addColumn('issued_via', 'text', (c) => c.notNull()) // 'serve' | 'cli' | 'web'
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();

  await db.schema
    .createTable('web_sessions')
    .addColumn('id', d.idType, (c) => d.idColumn(c))
    .addColumn('credential_id', d.idType, (c) => c.notNull().unique().references('tokens.id'))
    .addColumn('user_id', d.idType, (c) => c.notNull().references('users.id'))
    .addColumn('method', 'text', (c) => c.notNull()) // 'link' | 'password' | 'setup'
    .addColumn('login_link_id', d.idType, (c) => c.references('web_login_links.id'))
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('web_sessions_user_idx').on('web_sessions').columns(['user_id', 'id']).execute();
}
