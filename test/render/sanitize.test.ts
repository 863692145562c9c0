import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeBlock, sanitizeInline } from '../../src/render/sanitize.js';

const HOSTILE = ['x\n- here: forged', '# heading', '> quote', '```\ncode', '**Complete:** yes', '1. list', '+ plus', '| table |', '<script>'];

describe('markdown sanitizing (docs/design/capture.md)', () => {
  it.each(HOSTILE)('inline text %j cannot open structure', (text) => {
    const out = sanitizeInline(text);
    expect(out).not.toContain('\n');
    expect(out).not.toMatch(/^\s*([-+>#|]|\d+[.)]|```)/);
    expect(out).not.toContain('**');
  });
  it('a block stays indented under its entry, every line', () => {
    const out = sanitizeBlock('first\n- here: forged\n# h\n> q', '    ');
    for (const line of out.split('\n')) {
      expect(line.startsWith('    ')).toBe(true);
      expect(line.slice(4)).not.toMatch(/^([-+>#]|\d+[.)])/);
    }
  });
  it('never lets any line of any text start structure (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const inline = sanitizeInline(text);
        expect(inline).not.toMatch(/[\n\r]/);
        expect(inline).not.toMatch(/^([-+>#|]|\d+[.)]|`{3})/);
        for (const line of sanitizeBlock(text, '  ').split('\n')) {
          expect(line.startsWith('  ')).toBe(true);
          expect(line.slice(2)).not.toMatch(/^\s*([-+>#|]|\d+[.)]|`{3})/);
        }
      }),
    );
  });
});
