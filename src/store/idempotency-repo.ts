import type { Executor } from './dialect/dialect.js';

interface IdempotencyRecord {
  requestHash: string;
  sessionId: number | null;
  response: string | null;
  createdAt: string;
}

/**
 * Claims (credential, key) inside the create's transaction, or returns the record of the
 * request that claimed it first. `on conflict do nothing` (not catching a unique violation,
 * which would abort a PostgreSQL transaction) waits for a concurrent claimer to commit and
 * then sees its row (docs/concepts.md: a replay records nothing).
 */
export async function claimIdempotencyKey(
  db: Executor,
  claim: { credentialId: number; key: string; requestHash: string; now: string },
): Promise<IdempotencyRecord | null> {
  const r = await db
    .insertInto('idempotency_keys')
    .values({ credential_id: claim.credentialId, key: claim.key, request_hash: claim.requestHash, created_at: claim.now })
    .onConflict((oc) => oc.columns(['credential_id', 'key']).doNothing())
    .executeTakeFirst();
  if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 1) return null;
  return findIdempotencyKey(db, claim.credentialId, claim.key);
}

export async function findIdempotencyKey(db: Executor, credentialId: number, key: string): Promise<IdempotencyRecord | null> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'session_id', 'response', 'created_at'])
    .where('credential_id', '=', credentialId)
    .where('key', '=', key)
    .executeTakeFirst();
  return row
    ? { requestHash: row.request_hash, sessionId: row.session_id === null ? null : Number(row.session_id), response: row.response, createdAt: row.created_at }
    : null;
}

export async function completeIdempotencyKey(db: Executor, credentialId: number, key: string, sessionId: number, response: string): Promise<void> {
  await db.updateTable('idempotency_keys').set({ session_id: sessionId, response }).where('credential_id', '=', credentialId).where('key', '=', key).execute();
}

/** Keys are kept 24 hours (docs/concepts.md). */
export async function pruneIdempotencyKeys(db: Executor, olderThan: string): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('created_at', '<', olderThan).executeTakeFirst();
  return Number(r.numDeletedRows);
}
