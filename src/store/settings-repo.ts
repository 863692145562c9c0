import type { Executor } from './dialect/dialect.js';

/** Settings every node must agree on (docs/concepts.md) live in the store, not in each node's env. */
export async function getSetting(db: Executor, key: string): Promise<string | null> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value ?? null;
}

export async function getAllSettings(db: Executor): Promise<Map<string, string>> {
  const rows = await db.selectFrom('settings').select(['key', 'value']).execute();
  return new Map(rows.map((r) => [r.key, r.value]));
}

export async function setSetting(db: Executor, key: string, value: string, now: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value, updated_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: now }))
    .execute();
}

/** Writes the value only when the key is unset; returns the value that is stored afterwards. */
export async function seedSetting(db: Executor, key: string, value: string, now: string): Promise<string> {
  await db
    .insertInto('settings')
    .values({ key, value, updated_at: now })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return (await getSetting(db, key)) ?? value;
}

export async function deleteSetting(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('settings').where('key', '=', key).execute();
}
