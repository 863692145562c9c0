import type { Executor } from './dialect/dialect.js';

/** The reads of the OpenTelemetry export (app/exports/otel-source.ts), in batches the caller chooses. */

export async function allSessionIds(db: Executor): Promise<number[]> {
  const rows = await db.selectFrom('sessions').select('id').orderBy('id').execute();
  return rows.map((r) => Number(r.id));
}

export async function uncleRowsOf(db: Executor, sessionIds: readonly number[]) {
  if (sessionIds.length === 0) return [];
  return db.selectFrom('session_uncles').selectAll().where('session_id', 'in', sessionIds).execute();
}

export async function humanMessageRowsOf(db: Executor, sessionIds: readonly number[]) {
  if (sessionIds.length === 0) return [];
  return db
    .selectFrom('human_messages')
    .select(['session_id', 'id', 'entry_point', 'channel', 'author_key', 'content', 'digest_key', 'created_at', 'witness_isolation'])
    .where('session_id', 'in', sessionIds)
    .orderBy('id')
    .execute();
}

/**
 * Sessions in `statuses` changed after the watermark: after `at`, or at `at` itself when not in
 * `seen` (null: everything at `at` was seen), oldest first.
 */
export async function sessionsChangedSince(db: Executor, statuses: readonly string[], at: string, seen: readonly number[] | null, limit: number) {
  return db
    .selectFrom('sessions')
    .select(['id', 'updated_at'])
    .where('status', 'in', [...statuses])
    .where((eb) =>
      seen === null
        ? eb('updated_at', '>', at)
        : seen.length === 0
          ? eb('updated_at', '>=', at)
          : eb.or([eb('updated_at', '>', at), eb.and([eb('updated_at', '=', at), eb('id', 'not in', [...seen])])]),
    )
    .orderBy('updated_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}
