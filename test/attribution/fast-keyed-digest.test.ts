import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastKeyedDigest, keyedDigest } from '../../src/app/audit.js';

describe('fastKeyedDigest (the records check hot loop)', () => {
  it('agrees with HMAC-SHA256 (keyedDigest) for any 32-byte key and any words, including long and non-ASCII ones', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.string({ unit: 'binary', maxLength: 300 }), (key, words) => {
        const hex = Buffer.from(key).toString('hex');
        expect(fastKeyedDigest(hex, words)).toBe(keyedDigest(hex, words));
      }),
      { numRuns: 500 },
    );
    const hex = 'ab'.repeat(32);
    const long = 'é'.repeat(70_000); // past the reused buffer's first size
    expect(fastKeyedDigest(hex, long)).toBe(keyedDigest(hex, long));
    // a key that is not 32 hex bytes takes the plain path, same answer
    expect(fastKeyedDigest('abcd', 'x')).toBe(keyedDigest('abcd', 'x'));
    // 64 characters that stop being hex part-way, right after a valid key filled the buffer: no stale key bytes leak in
    for (const odd of ['cd'.repeat(16) + 'zz'.repeat(16), 'cd'.repeat(31) + 'g0', 'AB'.repeat(32), 'Ab'.repeat(32)]) {
      expect(fastKeyedDigest(hex, 'x')).toBe(keyedDigest(hex, 'x'));
      expect(fastKeyedDigest(odd, 'x')).toBe(keyedDigest(odd, 'x'));
    }
  });
});
