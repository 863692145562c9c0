import { describe, expect, it } from 'vitest';
import { randomIds } from '../../src/app/context.js';

/** The process's random values (app/context.ts): small ones are cut from a pool, each byte handed out once. */
describe('randomIds.bytes', () => {
  it('hands out distinct values of the asked length across pool refills, each in memory of its own', () => {
    // 32-byte record keys: 400 of them cross three refills of the 4 KiB pool
    const keys = Array.from({ length: 400 }, () => randomIds.bytes(32));
    expect(keys.every((k) => k.length === 32)).toBe(true);
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(400);
    // a value is a copy: changing it changes no other value, handed out before or after
    const before = keys.map((k) => k.toString('hex'));
    keys[0]!.fill(0);
    expect(keys.slice(1).map((k) => k.toString('hex'))).toEqual(before.slice(1));
    const next = randomIds.bytes(32);
    expect(next.toString('hex')).not.toBe('00'.repeat(32));
  });

  it('serves odd and large sizes', () => {
    for (const n of [1, 7, 255, 256, 257, 5000]) expect(randomIds.bytes(n).length).toBe(n);
    // not all zeros: a large value comes straight from the CSPRNG
    expect(randomIds.bytes(5000).some((b) => b !== 0)).toBe(true);
  });
});
