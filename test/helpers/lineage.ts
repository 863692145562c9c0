import type { Harness } from './harness.js';

/** Creates a session through REST (spawn edges only come from create) and returns its id. */
export async function spawn(h: Harness, parent: number | null, body: Record<string, unknown> = {}, token = h.fleetKey): Promise<number> {
  const res = await h.create(token, { ...(parent !== null ? { parent_session_id: parent } : {}), ...body });
  if (parent !== null && res.parent_resolution.resolved_id !== parent) throw new Error(`parent ${parent} not resolved: ${JSON.stringify(res.parent_resolution)}`);
  return res.session.id as number;
}

/**
 * Writes an uncle edge row directly (the writer, recordUncleEdge, is another issue's; tests
 * of the walk only need the row, including rows writers would refuse, like cycles).
 */
export async function insertUncle(h: Harness, senior: number, junior: number, basis: 'authenticated' | 'declared' = 'authenticated'): Promise<void> {
  await h.store.kysely
    .insertInto('session_uncles')
    .values({ session_id: junior, uncle_session_id: senior, source: 'rest.follow_up', basis, recorded_by_actor_id: null, created_at: new Date().toISOString() })
    .execute();
}

/** Strips the SQL the legacy-key extraction contributes, so what remains shows which columns a query reads. */
export function withoutLegacyKeyExtraction(sqlText: string): string {
  return sqlText.replace(/cast\(json_extract\([^)]*\) as text\)/g, '<legacy-key>').replace(/\(\([a-z_."]*custom_metadata::jsonb ->> '[a-z_]+'\)\)/g, '<legacy-key>');
}
