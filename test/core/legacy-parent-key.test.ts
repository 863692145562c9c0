import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { legacyKeyNames, legacyParentKeySpellings, parseLegacyParentKey } from '../../src/core/legacy-parent-key.js';

const uid = '3f2a9c1e-4b5d-4e6f-8a9b-0c1d2e3f4a5b';

describe('the legacy parent key: one parser, one list of spellings', () => {
  it('reads ids and full uids in the spellings it lists, and nothing looser', () => {
    expect(parseLegacyParentKey('7')).toEqual({ kind: 'id', id: 7 });
    expect(parseLegacyParentKey('#7')).toEqual({ kind: 'id', id: 7 });
    expect(parseLegacyParentKey(uid.toUpperCase())).toEqual({ kind: 'uid', uid });
    expect(parseLegacyParentKey(`uid:${uid.replace(/-/g, '')}`)).toEqual({ kind: 'uid', uid });
    for (const loose of [
      ' 7',
      '7 ',
      '07',
      '#07',
      '0',
      '-7',
      '+7',
      '7.0',
      '1e3',
      '##7',
      'uid:7',
      'UID:' + uid,
      uid.slice(0, 13),
      'Uid:' + uid,
      uid.replace('f', 'F'),
      '',
      '9007199254740993',
      'true',
      '{"a":1}',
    ]) {
      expect(parseLegacyParentKey(loose), JSON.stringify(loose)).toBeNull();
    }
    expect(parseLegacyParentKey(null)).toBeNull();
  });

  it('every spelling names its session; no other string does (property)', () => {
    const hex = fc.constantFrom(...'0123456789abcdef');
    const uidArb = fc.array(hex, { minLength: 32, maxLength: 32 }).map((cs) => {
      const h = cs.join('');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    });
    const session = fc.record({ id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), uid: uidArb });
    fc.assert(
      fc.property(session, (s) => {
        const spellings = legacyParentKeySpellings(s);
        expect(new Set(spellings).size).toBe(spellings.length);
        for (const k of spellings) expect(legacyKeyNames(k, s), k).toBe(true);
      }),
    );
    // any string the parser accepts is one of the spellings of what it names
    const near = fc.oneof(
      fc.string(),
      session.map((s) => legacyParentKeySpellings(s)[0]!),
      uidArb,
      uidArb.map((u) => u.toUpperCase()),
      fc.nat().map((n) => `#${n}`),
    );
    fc.assert(
      fc.property(near, session, (key, other) => {
        const ref = parseLegacyParentKey(key);
        if (!ref) return;
        const named = ref.kind === 'id' ? { id: ref.id, uid: other.uid } : { id: other.id, uid: ref.uid };
        expect(legacyParentKeySpellings(named)).toContain(key);
      }),
    );
  });
});
