import type { SessionStatus } from '../core/lifecycle.js';
import type { Executor } from './dialect/dialect.js';

/**
 * Sessions in one of `statuses` whose row has not changed since `before`, newest first (a
 * spawn child is newer than its parent, so children come before their parents).
 */
export async function sessionsUntouchedSince(db: Executor, statuses: readonly SessionStatus[], before: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('sessions')
    .select('id')
    .where('status', 'in', [...statuses])
    .where('updated_at', '<', before)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}
