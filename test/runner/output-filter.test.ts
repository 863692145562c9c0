import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputFilter } from '../../src/runner/output-filter.js';

const filterChunks = (chunks: (string | Uint8Array)[]): Buffer => {
  const f = new OutputFilter();
  const out = chunks.map((c) => f.push(typeof c === 'string' ? Buffer.from(c, 'binary') : c));
  return Buffer.concat([...out, f.flush()]);
};

/** What the filter must produce: the stream less ENQ, then less every OSC 52 (one cut off by a new ESC sequence or by the end included). */
function reference(stream: Buffer): Buffer {
  const s = stream.toString('binary').replace(/\x05/g, '');
  return Buffer.from(s.replace(/\x1b\]52;(?:[^\x07\x1b]|\x1b(?=\x1b))*(?:\x07|\x1b\\|\x1b\x07|\x1b$|(?=\x1b)|$)/g, ''), 'binary');
}

describe('OutputFilter: ENQ and OSC 52 dropped from the agent output, everything else byte-identical', () => {
  it('drops ENQ and OSC 52 (BEL- and ST-terminated), keeps other OSC and CSI sequences', () => {
    expect(filterChunks(['a\x05b']).toString('binary')).toBe('ab');
    expect(filterChunks(['x\x1b]52;c;aGVsbG8=\x07y']).toString('binary')).toBe('xy');
    expect(filterChunks(['x\x1b]52;c;aGVsbG8=\x1b\\y']).toString('binary')).toBe('xy');
    // an ENQ inside the opener does not smuggle OSC 52 past the filter
    expect(filterChunks(['x\x1b\x05]52;c;aGk=\x07y']).toString('binary')).toBe('xy');
    expect(filterChunks(['\x1b]0;title\x07\x1b[31mred\x1b[0m\x1b]5;x\x07']).toString('binary')).toBe('\x1b]0;title\x07\x1b[31mred\x1b[0m\x1b]5;x\x07');
  });

  it('works across chunk boundaries, one byte at a time included', () => {
    const stream = 'before\x1b]52;c;' + 'QUJD'.repeat(1000) + '\x07after\x1b[2J\x05end\x1b';
    const bytes = Buffer.from(stream, 'binary');
    const oneByOne = filterChunks([...bytes].map((b) => Uint8Array.of(b)));
    expect(oneByOne.toString('binary')).toBe('before' + 'after\x1b[2Jend\x1b');
    expect(filterChunks(['\x1b]5', '2;c;abc', '\x1b', '\\ok']).toString('binary')).toBe('ok');
    // a held ESC that never became OSC 52 is passed on at the end
    expect(filterChunks(['tail\x1b]5']).toString('binary')).toBe('tail\x1b]5');
  });

  it('a chunk with nothing to filter passes unchanged (every byte value but ENQ and ESC)', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i).filter((i) => i !== 0x05 && i !== 0x1b));
    expect(filterChunks([all]).equals(all)).toBe(true);
  });

  it('property: for random byte streams cut at random places the output equals the reference', () => {
    const piece = fc.oneof(
      fc.uint8Array({ maxLength: 8 }),
      fc
        .constantFrom('\x05', '\x1b', '\x1b]', '\x1b]5', '\x1b]52;', '\x1b]52;c;QQ==\x07', '\x1b]52;c;QQ==\x1b\\', '\x1b]0;t\x07', '\x1b[31m', '\x07', '\\')
        .map((s) => Buffer.from(s, 'binary')),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.array(fc.nat({ max: 9 }), { maxLength: 12 }), (pieces, cuts) => {
        const stream = Buffer.concat(pieces.map((p) => Buffer.from(p)));
        const chunks: Uint8Array[] = [];
        let at = 0;
        for (const cut of cuts) {
          chunks.push(stream.subarray(at, Math.min(stream.length, at + cut)));
          at = Math.min(stream.length, at + cut);
        }
        chunks.push(stream.subarray(at));
        expect(filterChunks(chunks).toString('binary')).toBe(reference(stream).toString('binary'));
      }),
      { numRuns: 3000 },
    );
  });
});
