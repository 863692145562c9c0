import { describe, expect, it } from 'vitest';
import { HumanLine } from '../../src/runner/terminal-delivery.js';

/** What the runner believes about the person's input line decides when it may type an inbox item in. */
describe('HumanLine: whether the person has something on their input line', () => {
  const after = (...chunks: string[]) => {
    const line = new HumanLine();
    for (const c of chunks) line.feed(Buffer.from(c, 'utf8'));
    return line.empty;
  };

  it('empty at first, after Enter, Ctrl-C or Ctrl-U; not empty while typing', () => {
    expect(after()).toBe(true);
    expect(after('h')).toBe(false);
    expect(after('hello', '\r')).toBe(true);
    expect(after('hello\x03')).toBe(true);
    expect(after('hello\x15')).toBe(true);
  });

  it('Backspace removes one character, a multi-byte one included', () => {
    expect(after('ab', '\x7f')).toBe(false);
    expect(after('ab', '\x7f\x7f')).toBe(true);
    expect(after('é😀', '\x7f\x7f')).toBe(true);
    expect(after('é😀', '\x7f')).toBe(false);
  });

  it('a key it cannot interpret (an arrow that may recall history, a paste) leaves the line unknown until Enter', () => {
    expect(after('\x1b[A')).toBe(false);
    expect(after('\x1b[200~pasted\x1b[201~', '\x7f'.repeat(20))).toBe(false);
    expect(after('\x1b[A', '\r')).toBe(true);
    expect(after('\x01')).toBe(false);
  });
});
