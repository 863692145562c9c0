import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hyphenateUidPrefix, parseSessionRef, prefixUpperBound } from '../../src/core/session-ref.js';

describe('parseSessionRef (docs/design/sessions.md "Session refs")', () => {
  it('reads #id and bare digits as ids, never as uid prefixes', () => {
    expect(parseSessionRef('#42')).toEqual({ kind: 'id', id: 42 });
    expect(parseSessionRef('42')).toEqual({ kind: 'id', id: 42 });
    expect(parseSessionRef('12345678')).toEqual({ kind: 'id', id: 12345678 });
    expect(parseSessionRef('0')).toEqual({ kind: 'invalid', reason: 'id-out-of-range' });
    expect(parseSessionRef('99999999999999999999')).toEqual({ kind: 'invalid', reason: 'id-out-of-range' });
  });
  it('reads full UUIDs, with or without hyphens and uid:', () => {
    const uid = '3f2a9c1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
    expect(parseSessionRef(uid)).toEqual({ kind: 'uid', uid });
    expect(parseSessionRef(uid.toUpperCase())).toEqual({ kind: 'uid', uid });
    expect(parseSessionRef(uid.replace(/-/g, ''))).toEqual({ kind: 'uid', uid });
    expect(parseSessionRef(`uid:${uid}`)).toEqual({ kind: 'uid', uid });
  });
  it('accepts a prefix of 8+ hex characters with a letter, and all-digit prefixes only after uid:', () => {
    expect(parseSessionRef('3f2a9c1e')).toEqual({ kind: 'uid-prefix', prefix: '3f2a9c1e' });
    expect(parseSessionRef('3f2a9c1e-5b')).toEqual({ kind: 'uid-prefix', prefix: '3f2a9c1e-5b' });
    expect(parseSessionRef('3f2a9c1e5b')).toEqual({ kind: 'uid-prefix', prefix: '3f2a9c1e-5b' });
    expect(parseSessionRef('uid:12345678')).toEqual({ kind: 'uid-prefix', prefix: '12345678' });
  });
  it('refuses a 7-character prefix and malformed refs', () => {
    expect(parseSessionRef('3f2a9c1')).toEqual({ kind: 'invalid', reason: 'prefix-too-short' });
    expect(parseSessionRef('uid:3f2a')).toEqual({ kind: 'invalid', reason: 'prefix-too-short' });
    expect(parseSessionRef('hello')).toEqual({ kind: 'invalid', reason: 'malformed' });
    expect(parseSessionRef('#abc')).toEqual({ kind: 'invalid', reason: 'malformed' });
    expect(parseSessionRef('')).toEqual({ kind: 'invalid', reason: 'empty' });
    expect(parseSessionRef('3f2a9c1e', false)).toEqual({ kind: 'invalid', reason: 'prefix-not-allowed' });
  });
  it('never reads an all-digit string as anything but an id (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9][0-9]{0,14}$/), (digits) => {
        const r = parseSessionRef(digits);
        expect(r).toEqual({ kind: 'id', id: Number(digits) });
      }),
    );
  });
  it('a prefix range holds exactly the uids that start with it (property)', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.integer({ min: 8, max: 31 }), (uid, n) => {
        const hex = uid.replace(/-/g, '').slice(0, n);
        const prefix = hyphenateUidPrefix(hex);
        expect(uid.startsWith(prefix)).toBe(true);
        expect(uid >= prefix && uid < prefixUpperBound(prefix)).toBe(true);
      }),
    );
  });
});
