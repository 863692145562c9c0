/**
 * spec 04 "The tamper-evident log": the chain rule, pure. Hashing itself needs a SHA-256
 * implementation, passed in so this file stays free of node imports.
 * hash = SHA-256(bytes(prev_hash) ‖ UTF-8(entry)); the first prev_hash is 32 zero bytes.
 */
export const GENESIS_PREV_HASH = '0'.repeat(64);
export const AUDIT_SCHEMA_VERSION = 1;

export type Sha256 = (bytes: Uint8Array) => string; // lowercase hex

export function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const encoder = new TextEncoder();

/** @example chainHash(sha, GENESIS_PREV_HASH, '{"a":1}') */
export function chainHash(sha256: Sha256, prevHash: string, entry: string): string {
  const prev = hexToBytes(prevHash);
  const body = encoder.encode(entry);
  const buf = new Uint8Array(prev.length + body.length);
  buf.set(prev, 0);
  buf.set(body, prev.length);
  return sha256(buf);
}

export interface ChainLink {
  seq: number;
  entry: string;
  prevHash: string;
  hash: string;
}

/**
 * Verifies links in order, continuing from `expectedPrev` at `expectedSeq`.
 * Returns the first broken seq, or null when every link holds.
 */
export function firstBrokenLink(
  sha256: Sha256,
  links: readonly ChainLink[],
  expectedSeq: number,
  expectedPrev: string,
): { brokenSeq: number | null; nextSeq: number; nextPrev: string } {
  let seq = expectedSeq;
  let prev = expectedPrev;
  for (const link of links) {
    if (link.seq !== seq || link.prevHash !== prev || chainHash(sha256, prev, link.entry) !== link.hash) {
      return { brokenSeq: link.seq !== seq ? seq : link.seq, nextSeq: seq, nextPrev: prev };
    }
    prev = link.hash;
    seq++;
  }
  return { brokenSeq: null, nextSeq: seq, nextPrev: prev };
}
