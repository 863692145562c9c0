import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical-json.js';

// The `canonicalize` package is the reference implementation of RFC 8785 the log used before:
// every entry already stored was hashed over its text, so ours must write the very same bytes.
const reference = (value: unknown) => canonicalize(value);

/** Strings that reach the corners of the scheme: escapes, non-BMP characters, names sorted by UTF-16 units. */
const awkwardString = fc.oneof(
  fc.string({ unit: 'binary' }).filter((s) => (s as string & { isWellFormed(): boolean }).isWellFormed()),
  fc.constantFrom('', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\u2029', '€', '\ud83d\ude00', '\ufb33', 'é', 'e\u0301'),
);

const awkwardNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(0, -0, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 0.1 + 0.2, -1.5e300),
);

const jsonLike = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    awkwardString,
    awkwardNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(awkwardString, tie('value'), { maxKeys: 6 }),
  ),
})).value;

describe('canonicalJson (RFC 8785, the text every audit entry hashes)', () => {
  it('writes the same text as the canonicalize package for any JSON value', () => {
    fc.assert(
      fc.property(jsonLike, (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes an audit entry draft as before, members by name', () => {
    const draft = {
      kind: 'session_event',
      at: '2026-12-04T09:00:00.000Z',
      session_id: 42,
      event_seq: 7,
      type: 'title_changed',
      details_digest: 'ab'.repeat(32),
      actor_id: 3,
      actor_basis: 'authenticated',
      caused_by_actor_id: null,
      schema_version: 2,
      seq: 1001,
    };
    expect(canonicalJson(draft)).toBe(reference(draft));
    expect(canonicalJson(draft).startsWith('{"actor_basis":"authenticated","actor_id":3,"at":')).toBe(true);
  });

  it('orders names by UTF-16 code units, not by code points or locale', () => {
    // U+FB33 sorts after U+1F600 by code point but before it by UTF-16 unit (0xD83D < 0xFB33)
    const value = { '\ufb33': 1, '\ud83d\ude00': 2, b: 3, B: 4, a: 5 };
    expect(canonicalJson(value)).toBe('{"B":4,"a":5,"b":3,"\ud83d\ude00":2,"\ufb33":1}');
    expect(canonicalJson(value)).toBe(reference(value));
  });

  it('uses toJSON, leaves out undefined members and writes undefined array items as null, like the package', () => {
    const value = { when: new Date(Date.UTC(2026, 11, 4)), gone: undefined, list: [1, undefined, 'x'], nested: { toJSON: () => ({ z: 1, a: [] }) } };
    expect(canonicalJson(value)).toBe('{"list":[1,null,"x"],"nested":{"a":[],"z":1},"when":"2026-12-04T00:00:00.000Z"}');
    expect(canonicalJson(value)).toBe(reference(value));
  });

  it('refuses what the package refuses: NaN, the infinities, a lone surrogate, a cycle', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    for (const bad of [NaN, Infinity, -Infinity, { x: '\ud800' }, ['\udc00 tail'], { ['\ud83d']: 1 }, cyclic]) {
      expect(() => reference(bad), JSON.stringify(String(bad))).toThrow();
      expect(() => canonicalJson(bad)).toThrow();
    }
  });

  it('allows the same object twice when it is not its own ancestor', () => {
    const shared = { k: 'v' };
    const value = { a: shared, b: [shared, shared] };
    expect(canonicalJson(value)).toBe('{"a":{"k":"v"},"b":[{"k":"v"},{"k":"v"}]}');
  });

  it('refuses a value with no JSON text at all', () => {
    expect(() => canonicalJson(undefined)).toThrow('not serializable');
    expect(() => canonicalJson(() => 1)).toThrow('not serializable');
  });
});
