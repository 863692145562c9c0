import type { Executor } from './dialect/dialect.js';

/**
 * Reads the evidence tables page by page in key order, for `warrant audit verify --records`
 * (docs/audit-log.md). Rows come back with their columns as stored, numbers as numbers on
 * both dialects (pg returns bigint as text: mapped here).
 */
export type ScannedTable =
  'session_events' | 'session_deletions' | 'session_uncles' | 'human_messages' | 'human_message_withdrawals' | 'message_history' | 'coverage_log' | 'tokens';

export type ScannedRow = Record<string, string | number | null>;

/** The key column each table is paged by (session_uncles: the pair, see `unclePage`). */
const KEY: Record<Exclude<ScannedTable, 'session_uncles'>, string> = {
  session_events: 'id',
  session_deletions: 'id',
  human_messages: 'id',
  human_message_withdrawals: 'id',
  message_history: 'seq',
  coverage_log: 'id',
  tokens: 'id',
};

/** Integer columns, mapped to numbers (the rest stay text or null). */
const NUMERIC = new Set([
  'id',
  'seq',
  'session_id',
  'uncle_session_id',
  'actor_id',
  'caused_by_actor_id',
  'credential_id',
  'owner_user_id',
  'lineage_parent_id',
  'event_count',
  'human_message_count',
  'inbox_item_id',
  'author_actor_id',
  'human_message_id',
  'source_session_id',
  'source_activation',
  'target_session_id',
  'payload_bytes',
  'instrumented',
  'user_id',
  'activation',
  'issued_by_actor_id',
  'recorded_by_actor_id',
  'schema_version',
]);

/** Columns a scan never needs: secrets and bulk that no log entry mirrors. */
const SKIPPED = new Set(['token_hash']);

/** In place: a scan reads hundreds of thousands of rows, and a copy of each is garbage at once. */
function normalize(row: Record<string, unknown>): ScannedRow {
  for (const k in row) {
    const v = row[k];
    if (v === undefined) row[k] = null;
    else if (v !== null && typeof v !== 'number' && NUMERIC.has(k)) row[k] = Number(v);
  }
  for (const k of SKIPPED) if (k in row) delete row[k];
  return row as ScannedRow;
}

/** One page of `table` after key `after` (0 for the first page), in key order. */
export async function evidencePage(db: Executor, table: Exclude<ScannedTable, 'session_uncles'>, after: number, limit: number): Promise<ScannedRow[]> {
  const key = KEY[table];
  const rows = await db
    .selectFrom(table as 'session_events')
    .selectAll()
    .where(key as 'id', '>', after)
    .orderBy(key as 'id')
    .limit(limit)
    .execute();
  return rows.map((r) => normalize(r as unknown as Record<string, unknown>));
}

/** The key a page of `table` continues after. */
export function evidenceKeyOf(table: Exclude<ScannedTable, 'session_uncles'>, row: ScannedRow): number {
  return row[KEY[table]] as number;
}

/** One page of uncle edges after the pair (junior, uncle), in pair order. */
export async function unclePage(db: Executor, after: { sessionId: number; uncleSessionId: number }, limit: number): Promise<ScannedRow[]> {
  const rows = await db
    .selectFrom('session_uncles')
    .selectAll()
    .where((eb) =>
      eb.or([eb('session_id', '>', after.sessionId), eb.and([eb('session_id', '=', after.sessionId), eb('uncle_session_id', '>', after.uncleSessionId)])]),
    )
    .orderBy('session_id')
    .orderBy('uncle_session_id')
    .limit(limit)
    .execute();
  return rows.map((r) => normalize(r as unknown as Record<string, unknown>));
}
