import { createHash, createHmac } from 'node:crypto';
import canonicalize from 'canonicalize';
import { AUDIT_SCHEMA_VERSION, GENESIS_PREV_HASH, chainHash, type Sha256 } from '../core/audit-chain.js';
import type { Executor, StoreDialect } from '../store/dialect/dialect.js';
import { auditHead, insertAuditRows, type AuditRow } from '../store/audit-repo.js';
import type { Transaction } from 'kysely';
import type { Database } from '../store/database.js';

export const sha256Hex: Sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** An evidence record's mirror in the log: plain JSON, never a human's words (digests only). */
export type AuditEntryDraft = { kind: string; at: string } & Record<string, unknown>;

/** HMAC-SHA256(k, words) with a per-record key: provable while the record exists, unguessable after. */
export function keyedDigest(key: Buffer, words: string): string {
  return createHmac('sha256', key).update(words, 'utf8').digest('hex');
}

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('audit entry is not serializable');
  return text;
}

/**
 * Appends entries as the last statements of the transaction, under the chain lock (taken
 * after the graph lock, held to commit), so appends stay linear across nodes (spec 04).
 */
export async function appendAuditEntries(tx: Transaction<Database>, store: StoreDialect, drafts: readonly AuditEntryDraft[]): Promise<void> {
  if (drafts.length === 0) return;
  await store.lockChain(tx);
  const head = await auditHead(tx);
  let seq = head ? head.seq : 0;
  let prev = head ? head.hash : GENESIS_PREV_HASH;
  const rows: AuditRow[] = [];
  for (const draft of drafts) {
    seq++;
    const entry = canonicalJson({ schema_version: AUDIT_SCHEMA_VERSION, seq, ...draft });
    const hash = chainHash(sha256Hex, prev, entry);
    rows.push({ seq, entry, prevHash: prev, hash });
    prev = hash;
  }
  await insertAuditRows(tx, rows);
}

export type { Executor };
