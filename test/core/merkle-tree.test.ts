import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CompactRange,
  consistencySpans,
  inclusionSpans,
  leafHash,
  merkleRoot,
  spanHash,
  spanNodes,
  verifyConsistency,
  verifyInclusion,
  type Span,
} from '../../src/core/merkle-tree.js';

const sha = (b: Uint8Array) => new Uint8Array(createHash('sha256').update(b).digest());
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const leaves = (n: number) => Array.from({ length: n }, (_, i) => leafHash(sha, new TextEncoder().encode(`entry ${i}`)));

/** A span's hash computed from its perfect parts, the way the store computes it. */
function viaParts(all: Uint8Array[], span: Span): Uint8Array {
  return spanHash(
    sha,
    spanNodes(span).map((n) => merkleRoot(sha, all.slice(n.index * 2 ** n.level, (n.index + 1) * 2 ** n.level))),
  );
}

describe('RFC 9162 Merkle tree', () => {
  it('matches the RFC 6962 test vectors (empty tree, one leaf, eight leaves)', () => {
    expect(hex(merkleRoot(sha, []))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(leafHash(sha, new Uint8Array(0)))).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    // the Go transparency-dev/merkle and CT test leaves: "", 00, 10, 2021, 3031, 40414243, …
    const inputs = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'];
    const ls = inputs.map((h) => leafHash(sha, Buffer.from(h, 'hex')));
    expect(hex(merkleRoot(sha, ls))).toBe('5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328');
  });

  it('inclusion proofs from perfect parts verify for every leaf of trees up to 40, and fail for another leaf or root', () => {
    for (let size = 1; size <= 40; size++) {
      const all = leaves(size);
      const root = merkleRoot(sha, all);
      for (let i = 0; i < size; i++) {
        const proof = inclusionSpans(i, size).map((s) => viaParts(all, s));
        expect(verifyInclusion(sha, i, size, all[i]!, proof, root)).toBe(true);
        expect(verifyInclusion(sha, i, size, leaves(size + 1)[size]!, proof, root)).toBe(false);
        if (size > 1) expect(verifyInclusion(sha, (i + 1) % size, size, all[i]!, proof, root)).toBe(false);
      }
    }
  });

  it('consistency proofs verify between every pair of sizes up to 40, and fail against another root', () => {
    const all = leaves(40);
    for (let n = 1; n <= 40; n++) {
      const root2 = merkleRoot(sha, all.slice(0, n));
      for (let m = 1; m <= n; m++) {
        const root1 = merkleRoot(sha, all.slice(0, m));
        const proof = consistencySpans(m, n).map((s) => viaParts(all, s));
        expect(verifyConsistency(sha, m, n, proof, root1, root2)).toBe(true);
        if (m < n) {
          expect(verifyConsistency(sha, m, n, proof, root2, root2)).toBe(false);
          expect(verifyConsistency(sha, m, n, proof, root1, root1)).toBe(false);
        }
      }
    }
  });

  it('a compact range grows to the reference root and emits every perfect subtree once', () => {
    const all = leaves(100);
    let range = new CompactRange(sha);
    const emitted = new Map<string, string>();
    for (let i = 0; i < all.length; i++) {
      if (i === 37) {
        // resume from the frontier, as the store does after a restart
        const frontier = spanNodes({ start: 0, end: i }).map((n) => merkleRoot(sha, all.slice(n.index * 2 ** n.level, (n.index + 1) * 2 ** n.level)));
        range = new CompactRange(sha, i, frontier);
      }
      for (const n of range.append(all[i]!)) {
        expect(emitted.has(`${n.level}/${n.index}`)).toBe(false);
        emitted.set(`${n.level}/${n.index}`, hex(n.hash));
      }
      expect(hex(range.root())).toBe(hex(merkleRoot(sha, all.slice(0, i + 1))));
    }
    expect(emitted.get('6/0')).toBe(hex(merkleRoot(sha, all.slice(0, 64))));
    expect(emitted.size).toBe(100 + 50 + 25 + 12 + 6 + 3 + 1);
  });
});
