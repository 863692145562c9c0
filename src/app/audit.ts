import * as crypto from 'node:crypto';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Transaction } from 'kysely';
import { canonicalJson } from '../core/canonical-json.js';
import { AUDIT_SCHEMA_VERSION, GENESIS_PREV_HASH, type ChainHasher, type Sha256 } from '../core/audit-chain.js';
import type { StoreDialect } from '../store/dialect/dialect.js';
import { auditHead, insertAuditRows, type AuditRow, type EntryTemplate } from '../store/audit-repo.js';
import { appendLiveEventsAndAuditFromHead, insertLiveEventsAndAuditOnHead, writeLiveEvents, type NewLiveEvent } from '../store/live-repo.js';
import type { Database } from '../store/database.js';
import type { IdSource } from './context.js';

export const sha256Hex: Sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

// One-shot hashing (Node ≥ 20.12) into a reused buffer: the verifier's hot loop.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'hex') => string }).hash;
let scratch = Buffer.allocUnsafe(64 * 1024);

/** The chain rule of core/audit-chain.ts (tested to agree with it), fast. */
export const nodeChainHasher: ChainHasher = (prevHash, entry) => {
  if (!oneShotHash) return createHash('sha256').update(Buffer.from(prevHash, 'hex')).update(entry, 'utf8').digest('hex');
  const need = 32 + Buffer.byteLength(entry, 'utf8');
  if (need > scratch.length) scratch = Buffer.allocUnsafe(Math.max(need, scratch.length * 2));
  scratch.write(prevHash, 0, 32, 'hex');
  scratch.write(entry, 32, 'utf8');
  return oneShotHash('sha256', scratch.subarray(0, need), 'hex');
};

/** An evidence record's mirror in the log: plain JSON, never a human's words (digests only). */
export type AuditEntryDraft = { kind: string; at: string } & Record<string, unknown>;

// RFC 8785 canonical JSON: the exact text stored in `audit_log.entry` and hashed (core/canonical-json.ts)
export { canonicalJson };

/*
 * Keyed digests (docs/attribution.md "Entries carry keyed digests of human words and payloads, never the
 * words"). How a record that holds words uses them:
 *
 *   const key = newRecordKey(ctx.ids);              // random, per record
 *   insert the record with a `digest_key` column = key   (beside the record, same row or a
 *                                                         side row deleted with it)
 *   w.audit({kind: 'human_message', …, content_digest: keyedDigest(key, words)});
 *
 * While the record exists, anyone allowed to read it (and so its key) can prove the log entry
 * matches with `verifyKeyedDigest`. When the record is deleted its key goes with it: the log
 * still proves a record existed, when, from whom and who deleted it, but a short message can
 * no longer be recovered by guessing (the key is 256 random bits, not derivable from the words).
 * Session events use this for their details (WriteScope.event).
 */

/** A fresh per-record key: 32 random bytes as lowercase hex (stored as text on both dialects). */
export function newRecordKey(ids: Pick<IdSource, 'bytes'>): string {
  return ids.bytes(32).toString('hex');
}

/** HMAC-SHA256(k, words), lowercase hex. `key` is the record's hex key (or its bytes). */
export function keyedDigest(key: string | Buffer, words: string): string {
  const k = typeof key === 'string' ? Buffer.from(key, 'hex') : key;
  return createHmac('sha256', k).update(words, 'utf8').digest('hex');
}

let hmacScratch = Buffer.allocUnsafe(64 * 1024);
const hmacOuter = Buffer.allocUnsafe(96);

/**
 * `keyedDigest` for a record's 32-byte hex key, fast: HMAC-SHA256 spelled out as two one-shot
 * SHA-256 calls (RFC 2104: H((k ⊕ opad) ‖ H((k ⊕ ipad) ‖ m))) into reused buffers — the records
 * check's hot loop. Tested to agree with `keyedDigest`.
 */
export function fastKeyedDigest(hexKey: string, words: string): string {
  if (!oneShotHash || hexKey.length !== 64) return keyedDigest(hexKey, words);
  const need = 64 + Buffer.byteLength(words, 'utf8');
  if (need > hmacScratch.length) hmacScratch = Buffer.allocUnsafe(Math.max(need, hmacScratch.length * 2));
  // hex decoding stops at the first character that is not hex: such a key takes the plain path
  if (hmacScratch.write(hexKey, 0, 32, 'hex') !== 32) return keyedDigest(hexKey, words);
  hmacScratch.fill(0, 32, 64);
  for (let i = 0; i < 64; i++) {
    hmacOuter[i] = hmacScratch[i]! ^ 0x5c;
    hmacScratch[i] = hmacScratch[i]! ^ 0x36;
  }
  hmacScratch.write(words, 64, 'utf8');
  hmacOuter.write(oneShotHash('sha256', hmacScratch.subarray(0, need), 'hex'), 64, 32, 'hex');
  return oneShotHash('sha256', hmacOuter, 'hex');
}

/** The keyed digest of a structured payload: HMAC over its canonical JSON text. */
export function keyedPayloadDigest(key: string | Buffer, payload: unknown): string {
  return keyedDigest(key, canonicalJson(payload));
}

/** Whether `digest` is the keyed digest of `words` under `key` (constant-time comparison). */
export function verifyKeyedDigest(key: string | Buffer, words: string, digest: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(digest)) return false;
  return timingSafeEqual(Buffer.from(keyedDigest(key, words), 'hex'), Buffer.from(digest, 'hex'));
}

/**
 * Appends entries as the last statements of the transaction, under the chain lock (taken
 * after the graph lock, held to commit), so appends stay linear across nodes (docs/attribution.md).
 * The transaction's live events go in with them (on PostgreSQL in one statement, with their
 * wake-up), so the live counter's row lock, taken after the chain lock, is held as briefly.
 * Where the server chains the rows (chainsInSql), nobody waits for the lock or the append: they
 * go out with the statements after them, and the lock is held for the server's work alone — on
 * a loaded 2-core machine each trip through this process under it had cost about a millisecond,
 * and every audited write queued behind it (bench/README.md). Elsewhere this process chains
 * them on the head it remembers, checked by the insert, or reads.
 */
export async function appendAuditEntries(
  tx: Transaction<Database>,
  store: StoreDialect,
  drafts: readonly AuditEntryDraft[],
  /** the transaction's live events, and the channel their wake-up (their last id) goes to */
  live: { events: readonly NewLiveEvent[]; notifyChannel: string } = { events: [], notifyChannel: '' },
): Promise<void> {
  if (drafts.length === 0) {
    await writeLiveEvents(tx, store, live);
    return;
  }
  await store.lockChain(tx);
  if (store.capabilities.chainsInSql) {
    const templates = entryTemplates(drafts);
    if (templates) {
      await appendLiveEventsAndAuditFromHead(tx, live, templates, GENESIS_PREV_HASH);
      return;
    }
  }
  // read after the lock where the lock is waited for (SQLite's single writer, or a PostgreSQL
  // append that went this way: there the lock is not waited for and the guess may be stale, which
  // the insert's check of the head catches, and the head is then read under the granted lock)
  const remembered = lastHeads.get(store);
  if (remembered) {
    const rows = chainRows(remembered, drafts);
    lastHeads.set(store, rows[rows.length - 1]!);
    if (await insertLiveEventsAndAuditOnHead(tx, store, live, remembered, rows)) return;
    // the live events are written: only the entries are left, on the head as it is
  } else {
    await writeLiveEvents(tx, store, live);
  }
  // nothing remembered, or another node (or a rolled-back transaction) moved the head
  const rows = chainRows(await auditHead(tx), drafts);
  lastHeads.set(store, rows[rows.length - 1]!);
  await insertAuditRows(tx, rows);
}

/** The most rows an append leaves the server to chain; every-day writes append one to a few. */
const CHAINED_BY_SERVER_MAX = 16;

/** A seq no entry can reach (ids stay below 2^53), written into a draft to find where its seq goes. */
const SEQ_STAND_IN = String(Number.MAX_SAFE_INTEGER);

/**
 * Each draft's canonical entry around its seq, for a server that chains the rows itself
 * (auditRowsFromHeadCtes); null if the stand-in's digits show up anywhere else in an entry.
 */
function entryTemplates(drafts: readonly AuditEntryDraft[]): EntryTemplate[] | null {
  // one CTE per row: the server's planning grows faster than the rows (a 200-row append took
  // about 100 ms to plan, under the lock), so a large append is chained here, as on SQLite
  if (drafts.length > CHAINED_BY_SERVER_MAX) return null;
  const templates: EntryTemplate[] = [];
  for (const draft of drafts) {
    const parts = canonicalJson({ ...draft, schema_version: AUDIT_SCHEMA_VERSION, seq: Number(SEQ_STAND_IN) }).split(SEQ_STAND_IN);
    if (parts.length !== 2) return null;
    templates.push({ before: parts[0]!, after: parts[1]! });
  }
  return templates;
}

/**
 * The head this process last appended, per store: the next append checks it in its insert
 * instead of reading it first (one statement fewer under the chain lock). A stale one costs
 * only the read it was meant to save.
 */
const lastHeads = new WeakMap<StoreDialect, { seq: number; hash: string }>();

function chainRows(head: { seq: number; hash: string } | null, drafts: readonly AuditEntryDraft[]): AuditRow[] {
  let seq = head ? head.seq : 0;
  let prev = head ? head.hash : GENESIS_PREV_HASH;
  const rows: AuditRow[] = [];
  for (const draft of drafts) {
    seq++;
    const entry = canonicalJson({ ...draft, schema_version: AUDIT_SCHEMA_VERSION, seq });
    const hash = nodeChainHasher(prev, entry);
    rows.push({ seq, entry, prevHash: prev, hash });
    prev = hash;
  }
  return rows;
}
