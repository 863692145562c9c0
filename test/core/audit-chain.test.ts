import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CHAIN_START, chainHash, chainHasherFrom, GENESIS_PREV_HASH, verifyLinks } from '../../src/core/audit-chain.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('the audit chain rule (docs/design/attribution.md)', () => {
  it('hashes prev-hash bytes then the entry bytes; the first prev is 32 zero bytes', () => {
    const entry = '{"a":1}';
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.alloc(32), Buffer.from(entry, 'utf8')]))
      .digest('hex');
    expect(chainHash(sha, GENESIS_PREV_HASH, entry)).toBe(expected);
  });
  it('finds the first broken link', () => {
    const links = [];
    let prev = GENESIS_PREV_HASH;
    for (let seq = 1; seq <= 5; seq++) {
      const entry = JSON.stringify({ seq });
      const hash = chainHash(sha, prev, entry);
      links.push({ seq, entry, prevHash: prev, hash });
      prev = hash;
    }
    const hasher = chainHasherFrom(sha);
    expect(verifyLinks(hasher, links, CHAIN_START).broken).toBeNull();
    const tampered = links.map((l) => (l.seq === 3 ? { ...l, entry: '{"seq":33}' } : l));
    expect(verifyLinks(hasher, tampered, CHAIN_START).broken).toEqual({ seq: 3, reason: 'hash-mismatch' });
    const gap = links.filter((l) => l.seq !== 2);
    expect(verifyLinks(hasher, gap, CHAIN_START).broken).toEqual({ seq: 2, reason: 'seq-gap' });
  });
});
