import { createHash } from 'node:crypto';
import { checkReportedText, MAX_CONVERSATION_ID_LENGTH, MAX_PROVIDER_LENGTH } from '../../core/conversations.js';
import { WarrantError } from '../../core/errors.js';
import { getSetting } from '../../store/settings-repo.js';
import {
  advanceTranscriptPosition,
  countTranscriptBefore,
  insertTranscriptLines,
  transcriptPageAfter,
  transcriptPageBefore,
  transcriptPosition,
  type PositionKey,
  type TranscriptRecordRow,
} from '../../store/transcripts-repo.js';
import type { Executor } from '../../store/dialect/dialect.js';
import { authorize, reportingRuntimeParent, requireSession } from '../access.js';
import { attributionOf, resolveActing } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { providerMismatch } from '../conversations/conversation-history.js';
import { inWriteTx } from '../write-scope.js';

/**
 * docs/design/agent-runtimes.md "Transcripts": the runtime appends what the provider's
 * transcript file gained since its last report, by byte offset. The server keeps the next
 * expected offset per (session, provider, conversation) and refuses an append naming another
 * (stop hooks race: of two appends at one offset exactly one lands). Records are the lines
 * exactly as written, each with its conversation and byte offset; they live off the session
 * row, and the audit log only ever sees a keyed digest of them (the event's).
 */
export const SETTING_TRANSCRIPTS = 'transcripts';
/** The file's bytes one append may carry: each line's UTF-8 bytes plus its newline. */
export const MAX_TRANSCRIPT_CHUNK_BYTES = 1024 * 1024;
const MAX_TRANSCRIPT_CHUNK_LINES = 16_384;

interface TranscriptAppend {
  provider: unknown;
  conversationId: unknown;
  offset: unknown;
  lines: unknown;
  restarted?: unknown;
}

export interface TranscriptRecordView {
  id: number;
  provider: string | null;
  conversationId: string | null;
  /** byte offset of the line in the provider's file; null for records from before offsets */
  offset: number | null;
  restarted: boolean;
  /** the line exactly as written */
  line: string;
  /** the line as JSON, or null when it is not JSON */
  record: unknown;
  createdAt: string;
}

function field(name: string, message: string): WarrantError {
  return new WarrantError('invalid-request', `${name}: ${message}`, { details: { field: name } });
}

function text(value: unknown, name: string, max: number): string {
  const r = checkReportedText(value, name, max);
  if (!r.ok) throw field(name, r.reason.replace(`${name}: `, '') + '.');
  return r.value!;
}

const UNSTORABLE = /[\n\u0000]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function checkAppend(input: TranscriptAppend): { key: Omit<PositionKey, 'sessionId'>; offset: number; lines: string[]; restarted: boolean; bytes: number } {
  const provider = text(input.provider, 'provider', MAX_PROVIDER_LENGTH);
  const conversationId = text(input.conversationId, 'conversation_id', MAX_CONVERSATION_ID_LENGTH);
  const offset = input.offset;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) throw field('offset', 'a byte offset (a whole number ≥ 0).');
  const restarted = input.restarted ?? false;
  if (typeof restarted !== 'boolean') throw field('restarted', 'true or false.');
  if (restarted && offset !== 0) throw field('offset', 'a restarted file is appended from offset 0.');
  if (!Array.isArray(input.lines)) throw field('lines', 'a list of lines.');
  if (input.lines.length > MAX_TRANSCRIPT_CHUNK_LINES) {
    throw new WarrantError('transcript-chunk-too-large', `lines: at most ${MAX_TRANSCRIPT_CHUNK_LINES} lines a request; send the rest in the next one.`, {
      details: { field: 'lines', max_lines: MAX_TRANSCRIPT_CHUNK_LINES, max_bytes: MAX_TRANSCRIPT_CHUNK_BYTES },
    });
  }
  let bytes = 0;
  input.lines.forEach((line: unknown, i: number) => {
    if (typeof line !== 'string') throw field(`lines.${i}`, 'must be text.');
    if (UNSTORABLE.test(line)) throw field(`lines.${i}`, 'one line without its newline, as valid UTF-8 text without NUL characters.');
    bytes += Buffer.byteLength(line, 'utf8') + 1;
  });
  if (bytes > MAX_TRANSCRIPT_CHUNK_BYTES) {
    throw new WarrantError(
      'transcript-chunk-too-large',
      `lines: ${bytes} bytes of the file; one request carries at most ${MAX_TRANSCRIPT_CHUNK_BYTES} (1 MiB). Send the rest in the next one.`,
      {
        details: { field: 'lines', bytes, max_bytes: MAX_TRANSCRIPT_CHUNK_BYTES, max_lines: MAX_TRANSCRIPT_CHUNK_LINES },
      },
    );
  }
  return { key: { provider, conversationId }, offset, lines: input.lines as string[], restarted, bytes };
}

function offsetMismatch(sessionId: number, expected: number, given: number): WarrantError {
  return new WarrantError(
    'transcript-offset-mismatch',
    `Session #${sessionId}'s transcript continues at byte ${expected}, not ${given}; nothing was appended. Send what the file holds from byte ${expected}.`,
    {
      details: { expected_offset: expected, offset: given },
    },
  );
}

async function transcriptsEnabled(db: Executor): Promise<boolean> {
  return (await getSetting(db, SETTING_TRANSCRIPTS)) !== 'off';
}

/** `POST /api/v1/sessions/{ref}/transcript`: the session's runtime (or the runtime that created it). */
export async function appendTranscript(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: TranscriptAppend,
): Promise<{ appended: number; nextOffset: number }> {
  const chunk = checkAppend(input);
  return inWriteTx(ctx, async (w) => {
    const session = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'runtime-report', session);
    if (!(await transcriptsEnabled(w.tx))) {
      throw new WarrantError('transcripts-off', 'Transcripts are turned off on this server (setting `transcripts`); nothing was stored.');
    }
    if (session.provider !== null && session.provider !== chunk.key.provider) throw providerMismatch(session, chunk.key.provider);
    const key: PositionKey = { sessionId: session.id, ...chunk.key };
    const current = (await transcriptPosition(w.tx, key)) ?? 0;
    if (!chunk.restarted && chunk.offset !== current) throw offsetMismatch(session.id, current, chunk.offset);
    const next = chunk.offset + chunk.bytes;
    if (chunk.lines.length === 0 && !chunk.restarted) return { appended: 0, nextOffset: current };
    await ctx.seams?.afterRead?.('transcript-append', session.id);
    if (!(await advanceTranscriptPosition(w.tx, key, current, next, w.now))) {
      // another append landed first: say where the file continues now
      throw offsetMismatch(session.id, (await transcriptPosition(w.tx, key)) ?? 0, chunk.offset);
    }
    let at = chunk.offset;
    const rows = chunk.lines.map((line, i) => {
      const row = { line, offset: at, restarted: chunk.restarted && i === 0 };
      at += Buffer.byteLength(line, 'utf8') + 1;
      return row;
    });
    await insertTranscriptLines(w.tx, key, rows, w.now);
    const acting = await resolveActing(w, caller, null);
    const runtimeParent = reportingRuntimeParent(caller, session);
    const digest = createHash('sha256');
    for (const line of chunk.lines) digest.update(line, 'utf8').update('\n');
    await w.event(
      session.id,
      'transcript_appended',
      {
        provider: key.provider,
        conversation_id: key.conversationId,
        offset: chunk.offset,
        next_offset: next,
        lines: chunk.lines.length,
        bytes: chunk.bytes,
        // the chunk's digest, never its text: the audit log mirrors only a keyed digest of these details
        content_sha256: digest.digest('hex'),
        ...(chunk.restarted ? { restarted: true, previous_offset: current } : {}),
        ...(runtimeParent !== null ? { runtime_parent_id: runtimeParent } : {}),
      },
      attributionOf(acting),
    );
    return { appended: chunk.lines.length, nextOffset: next };
  });
}

/** `GET /api/v1/sessions/{ref}/transcript/position`: where the next append must start (0 when none). */
export async function readTranscriptPosition(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: { provider: unknown; conversationId: unknown },
): Promise<{ sessionId: number; provider: string; conversationId: string; nextOffset: number; enabled: boolean }> {
  const provider = text(input.provider, 'provider', MAX_PROVIDER_LENGTH);
  const conversationId = text(input.conversationId, 'conversation_id', MAX_CONVERSATION_ID_LENGTH);
  const db = ctx.store.kysely;
  const session = await requireSession(db, ctx, caller, ref);
  await authorize(db, ctx, caller, 'read', session);
  const nextOffset = (await transcriptPosition(db, { sessionId: session.id, provider, conversationId })) ?? 0;
  return { sessionId: session.id, provider, conversationId, nextOffset, enabled: await transcriptsEnabled(db) };
}

function view(r: TranscriptRecordRow): TranscriptRecordView {
  let record: unknown = null;
  try {
    record = JSON.parse(r.line) as unknown;
  } catch {
    record = null;
  }
  return {
    id: r.id,
    provider: r.provider,
    conversationId: r.conversationId,
    offset: r.offset,
    restarted: r.restarted,
    line: r.line,
    record,
    createdAt: r.createdAt,
  };
}

/** Oldest first, forward by cursor (the REST reader). */
export async function readTranscript(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: { cursor?: string; limit?: number },
): Promise<{ records: TranscriptRecordView[]; nextCursor: string | null }> {
  const db = ctx.store.kysely;
  const session = await requireSession(db, ctx, caller, ref);
  await authorize(db, ctx, caller, 'read', session);
  const limit = Math.min(Math.max(input.limit ?? 100, 1), 500);
  const rows = await transcriptPageAfter(db, session.id, input.cursor ? decodeCursor(input.cursor, 'transcript') : null, limit + 1);
  const page = rows.slice(0, limit);
  return { records: page.map(view), nextCursor: rows.length > limit ? encodeCursor('transcript', page[page.length - 1]!.id) : null };
}

/**
 * The latest records, oldest first, and how many are older (the session page): `before` is
 * the cursor of the page's older neighbour.
 */
export async function readTranscriptTail(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: { before?: string; limit: number },
): Promise<{ sessionId: number; records: TranscriptRecordView[]; older: number; olderCursor: string | null }> {
  const db = ctx.store.kysely;
  const session = await requireSession(db, ctx, caller, ref);
  await authorize(db, ctx, caller, 'read', session);
  const rows = (await transcriptPageBefore(db, session.id, input.before ? decodeCursor(input.before, 'transcript-before') : null, input.limit)).reverse();
  const first = rows[0];
  const older = first ? await countTranscriptBefore(db, session.id, first.id) : 0;
  return { sessionId: session.id, records: rows.map(view), older, olderCursor: first && older > 0 ? encodeCursor('transcript-before', first.id) : null };
}
