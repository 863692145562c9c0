/**
 * docs/attribution.md: the chain rule, pure. Hashing itself needs a SHA-256
 * implementation, passed in so this file stays free of node imports.
 * hash = SHA-256(bytes(prev_hash) ‖ UTF-8(entry)); the first prev_hash is 32 zero bytes.
 */
export const GENESIS_PREV_HASH = '0'.repeat(64);
export const AUDIT_SCHEMA_VERSION = 1;

export type Sha256 = (bytes: Uint8Array) => string; // lowercase hex
/** The chain rule as one function of (prev_hash hex, entry text) → hash hex. */
export type ChainHasher = (prevHash: string, entry: string) => string;

const HEX64 = /^[0-9a-f]{64}$/;

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const encoder = new TextEncoder();

/**
 * The reference definition of the rule; faster hashers must agree with it (tested).
 * @example chainHash(sha, GENESIS_PREV_HASH, '{"a":1}')
 */
export function chainHash(sha256: Sha256, prevHash: string, entry: string): string {
  const prev = hexToBytes(prevHash);
  const body = encoder.encode(entry);
  const buf = new Uint8Array(prev.length + body.length);
  buf.set(prev, 0);
  buf.set(body, prev.length);
  return sha256(buf);
}

export function chainHasherFrom(sha256: Sha256): ChainHasher {
  return (prev, entry) => chainHash(sha256, prev, entry);
}

export interface ChainLink {
  seq: number;
  entry: string;
  prevHash: string;
  hash: string;
}

/** Why a link does not hold, for the verifier's report. */
type ChainBreakReason =
  /** the expected seq is missing (a deleted row, or the log was cut and renumbered) */
  | 'seq-gap'
  /** prev_hash is not the previous link's hash */
  | 'prev-hash-mismatch'
  /** the stored hash is not SHA-256(prev_hash ‖ entry): the entry or the hash was edited */
  | 'hash-mismatch';

export const CHAIN_BREAK_DESCRIPTIONS: Record<ChainBreakReason, string> = {
  'seq-gap': 'an entry is missing: the sequence skips this number',
  'prev-hash-mismatch': "prev_hash does not equal the previous entry's hash",
  'hash-mismatch': 'the stored hash does not match SHA-256(prev_hash ‖ entry): the entry or its hash was changed',
};

/** Where verification continues: the seq expected next and the hash it must chain from. */
export interface ChainCursor {
  nextSeq: number;
  prevHash: string;
}

export const CHAIN_START: ChainCursor = { nextSeq: 1, prevHash: GENESIS_PREV_HASH };

export interface ChainBreak {
  seq: number;
  reason: ChainBreakReason;
}

/**
 * Verifies links in order from `cursor`. Returns the first broken link (the seq the log
 * should have had there), or null with the cursor to continue from with the next batch.
 * @example verifyLinks(hasher, links, CHAIN_START) // {broken: null, cursor: {nextSeq: 3, prevHash: '…'}}
 */
export function verifyLinks(hasher: ChainHasher, links: readonly ChainLink[], cursor: ChainCursor): { broken: ChainBreak | null; cursor: ChainCursor } {
  let { nextSeq, prevHash } = cursor;
  for (const link of links) {
    if (link.seq !== nextSeq) return { broken: { seq: nextSeq, reason: 'seq-gap' }, cursor: { nextSeq, prevHash } };
    if (link.prevHash !== prevHash) return { broken: { seq: nextSeq, reason: 'prev-hash-mismatch' }, cursor: { nextSeq, prevHash } };
    if (!HEX64.test(link.hash) || hasher(prevHash, link.entry) !== link.hash) {
      return { broken: { seq: nextSeq, reason: 'hash-mismatch' }, cursor: { nextSeq, prevHash } };
    }
    prevHash = link.hash;
    nextSeq++;
  }
  return { broken: null, cursor: { nextSeq, prevHash } };
}
