import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength } from '../../src/core/text.js';
import { deriveTitle, MAX_TITLE_LENGTH, slugify, titleFromFailure } from '../../src/core/titles.js';

describe('titles and slugs (docs/design/sessions.md "Titles")', () => {
  it('takes the first non-empty line of the human words', () => {
    expect(deriveTitle('\n\n  Fix the flaky deploy  \nmore')).toBe('Fix the flaky deploy');
    expect(deriveTitle('')).toBeNull();
    expect(deriveTitle('   \n  ')).toBeNull();
    expect(deriveTitle(null)).toBeNull();
  });
  it('cuts at 80 code points and never splits one (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }), (text) => {
        const title = deriveTitle(text);
        if (title === null) return;
        expect(codePointLength(title)).toBeLessThanOrEqual(MAX_TITLE_LENGTH);
        expect(title).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/); // no lone high surrogate
      }),
    );
    const emoji = '😀'.repeat(100);
    expect(codePointLength(deriveTitle(emoji)!)).toBe(80);
    expect(deriveTitle(emoji)).toBe('😀'.repeat(80));
  });
  it('names a failed session from its reason', () => {
    expect(titleFromFailure('exited with code 3')).toBe('Failed: exited with code 3');
    expect(titleFromFailure(null)).toBe('Failed: unknown error');
  });
  it('slugifies deterministically', () => {
    expect(slugify('Ship the Hotfix!')).toBe('ship-the-hotfix');
    expect(slugify('Café déjà vu')).toBe('cafe-deja-vu');
    expect(slugify('!!!')).toBe('session');
  });
});
