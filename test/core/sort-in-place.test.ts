import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ascending, sortInPlace } from '../../src/core/hierarchy-types.js';

describe('sortInPlace (the walk and layout sort small, mostly ordered lists)', () => {
  it('leaves the list in the order a sort gives, in place, whether it was in order or not', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 40 }), fc.boolean(), (xs, presorted) => {
        const list = presorted ? [...xs].sort(ascending) : [...xs];
        const expected = [...xs].sort(ascending);
        expect(sortInPlace(list, ascending)).toBe(list);
        expect(list).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps equal elements in their order (a stable sort, as Array.prototype.sort)', () => {
    const byKey = (a: { k: number }, b: { k: number }) => a.k - b.k;
    const list = [
      { k: 2, tag: 'a' },
      { k: 1, tag: 'b' },
      { k: 2, tag: 'c' },
      { k: 1, tag: 'd' },
    ];
    expect(sortInPlace(list, byKey).map((x) => x.tag)).toEqual(['b', 'd', 'a', 'c']);
  });
});
