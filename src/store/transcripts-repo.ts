import type { Executor } from './dialect/dialect.js';

/** Transcript records (the provider's lines, off the session row) and the per-conversation next offset. */
export interface TranscriptRecordRow {
  id: number;
  line: string;
  provider: string | null;
  conversationId: string | null;
  offset: number | null;
  restarted: boolean;
  createdAt: string;
}

interface NewTranscriptLine {
  line: string;
  offset: number;
  restarted: boolean;
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));
const COLUMNS = ['id', 'record', 'provider', 'conversation_id', 'byte_offset', 'restarted', 'created_at'] as const;

function toRow(r: {
  id: number;
  record: string;
  provider: string | null;
  conversation_id: string | null;
  byte_offset: number | string | null;
  restarted: number;
  created_at: string;
}): TranscriptRecordRow {
  return {
    id: Number(r.id),
    line: r.record,
    provider: r.provider,
    conversationId: r.conversation_id,
    offset: num(r.byte_offset),
    restarted: Number(r.restarted) === 1,
    createdAt: r.created_at,
  };
}

// 7 values a row: well under SQLite's and PostgreSQL's bound-parameter limits
const INSERT_BATCH = 500;

export async function insertTranscriptLines(
  db: Executor,
  key: { sessionId: number; provider: string; conversationId: string },
  lines: readonly NewTranscriptLine[],
  now: string,
): Promise<void> {
  for (let i = 0; i < lines.length; i += INSERT_BATCH) {
    await db
      .insertInto('session_transcripts')
      .values(
        lines.slice(i, i + INSERT_BATCH).map((l) => ({
          session_id: key.sessionId,
          record: l.line,
          provider: key.provider,
          conversation_id: key.conversationId,
          byte_offset: l.offset,
          restarted: l.restarted ? 1 : 0,
          created_at: now,
        })),
      )
      .execute();
  }
}

/** Oldest first, after `afterId`. */
export async function transcriptPageAfter(db: Executor, sessionId: number, afterId: number | null, limit: number): Promise<TranscriptRecordRow[]> {
  let q = db.selectFrom('session_transcripts').select(COLUMNS).where('session_id', '=', sessionId);
  if (afterId !== null) q = q.where('id', '>', afterId);
  return (await q.orderBy('id').limit(limit).execute()).map(toRow);
}

/** Newest first, before `beforeId` (the latest records when null). */
export async function transcriptPageBefore(db: Executor, sessionId: number, beforeId: number | null, limit: number): Promise<TranscriptRecordRow[]> {
  let q = db.selectFrom('session_transcripts').select(COLUMNS).where('session_id', '=', sessionId);
  if (beforeId !== null) q = q.where('id', '<', beforeId);
  return (await q.orderBy('id', 'desc').limit(limit).execute()).map(toRow);
}

export async function countTranscriptBefore(db: Executor, sessionId: number, beforeId: number): Promise<number> {
  const r = await db
    .selectFrom('session_transcripts')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('session_id', '=', sessionId)
    .where('id', '<', beforeId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export interface PositionKey {
  sessionId: number;
  provider: string;
  conversationId: string;
}

const at = (db: Executor, k: PositionKey) =>
  db
    .selectFrom('transcript_positions')
    .select('next_offset')
    .where('session_id', '=', k.sessionId)
    .where('provider', '=', k.provider)
    .where('conversation_id', '=', k.conversationId);

/** The next byte offset expected, or null when nothing was appended for this conversation yet. */
export async function transcriptPosition(db: Executor, k: PositionKey): Promise<number | null> {
  const row = await at(db, k).executeTakeFirst();
  return row ? Number(row.next_offset) : null;
}

/**
 * Moves the position from `expected` to `next` — compare-and-set, so of two appends naming the
 * same offset exactly one lands (PostgreSQL: the second waits on the row, then matches nothing;
 * SQLite: write transactions are serial). A missing row counts as offset 0; creating it races
 * through the primary key (`on conflict do nothing`), never an error.
 */
export async function advanceTranscriptPosition(db: Executor, k: PositionKey, expected: number, next: number, now: string): Promise<boolean> {
  if (expected === 0) {
    const inserted = await db
      .insertInto('transcript_positions')
      .values({ session_id: k.sessionId, provider: k.provider, conversation_id: k.conversationId, next_offset: next, updated_at: now })
      .onConflict((oc) => oc.columns(['session_id', 'provider', 'conversation_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return true;
  }
  const r = await db
    .updateTable('transcript_positions')
    .set({ next_offset: next, updated_at: now })
    .where('session_id', '=', k.sessionId)
    .where('provider', '=', k.provider)
    .where('conversation_id', '=', k.conversationId)
    .where('next_offset', '=', expected)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
