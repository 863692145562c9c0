import type { Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';
import type { MigrationHooks } from '../migration-hooks.js';

/**
 * docs/operations.md "The server secret": the secret session tokens are derived from leaves
 * the store. A store that still holds it hands it to the node (which writes it to its data
 * dir, or checks it against the secret it was given) and keeps only the check value, so
 * tokens minted before keep working and a copy of the store alone derives none.
 */
export async function up(db: Kysely<any>, _dialect: StoreDialect, hooks: MigrationHooks): Promise<void> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', 'server_secret').executeTakeFirst();
  if (!row) return;
  if (!hooks.relocateServerSecret) {
    throw new Error('This store still holds its server secret; start `warrant serve` (or run any admin command) once to move it out to the data dir.');
  }
  // the secret is safe outside the store before it is removed from it
  const check = await hooks.relocateServerSecret(row.value);
  const now = new Date().toISOString();
  await db
    .insertInto('settings')
    .values({ key: 'server_secret_check', value: check, updated_at: now })
    .onConflict((oc: any) => oc.column('key').doUpdateSet({ value: check, updated_at: now }))
    .execute();
  await db.deleteFrom('settings').where('key', '=', 'server_secret').execute();
}
