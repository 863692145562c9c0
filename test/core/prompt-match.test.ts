import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePrompt, PROMPT_DIGEST_PATTERN, promptDigest, promptFingerprint, promptLength } from '../../src/core/prompt-match.js';

/** A naive reference: line endings one character at a time, then whitespace popped off the end. */
function referenceNormalize(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\r') {
      out += '\n';
      if (text[i + 1] === '\n') i++;
    } else out += c;
  }
  while (out.length > 0 && /\s/.test(out[out.length - 1]!)) out = out.slice(0, -1);
  return out;
}

const sha256 = (s: string) => createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');

// text with the characters that matter here over-represented: line endings, spaces, astral code points
const piece = fc.oneof(
  fc.constantFrom('\r\n', '\r', '\n', ' ', '\t', '\u00a0', '\u2028', 'a', 'é', '👋', '𝄞', '\u{1F468}\u200D\u{1F469}'),
  fc.string({ unit: 'grapheme', maxLength: 4 }),
  fc.string({ unit: 'binary', maxLength: 3 }),
);
const text = fc.array(piece, { maxLength: 24 }).map((p) => p.join(''));

describe('prompt matching: one normalization and digest', () => {
  it('normalizes line endings and trailing whitespace only', () => {
    expect(normalizePrompt('fix it\r\nplease \n\n')).toBe('fix it\nplease');
    expect(normalizePrompt('a\rb\r\n\r\nc')).toBe('a\nb\n\nc');
    expect(normalizePrompt('  leading stays')).toBe('  leading stays');
    expect(normalizePrompt('inner   spaces\tstay')).toBe('inner   spaces\tstay');
    expect(normalizePrompt('CASE stays')).not.toBe(normalizePrompt('case stays'));
    expect(normalizePrompt(' \r\n\t ')).toBe('');
  });

  it('counts code points, not UTF-16 units', () => {
    expect(promptLength('héllo 👋\r\n')).toBe(7);
    expect(promptLength('𝄞')).toBe(1);
    expect(promptLength('a\r\nb')).toBe(3);
    expect(promptLength('')).toBe(0);
  });

  it('digests are lowercase hex SHA-256 of the UTF-8 of the normalized text', async () => {
    expect(await promptDigest('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(await promptDigest('hi\r\n')).toBe(sha256('hi'));
    expect(await promptDigest('👋 there')).toBe(sha256('👋 there'));
    expect(await promptDigest('a')).toMatch(PROMPT_DIGEST_PATTERN);
    expect(await promptDigest('a')).not.toBe(await promptDigest('b'));
    expect(await promptFingerprint('x \n')).toEqual({ digest: sha256('x'), length: 1 });
  });

  it('property: normalization equals the naive reference, and is idempotent', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(normalizePrompt(t)).toBe(referenceNormalize(t));
        expect(normalizePrompt(normalizePrompt(t))).toBe(normalizePrompt(t));
      }),
      { numRuns: 500 },
    );
  });

  it('property: CRLF, CR and LF versions of a text have one digest and one length', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          text.map((s) => s.replace(/[\r\n]/g, '')),
          { minLength: 1, maxLength: 6 },
        ),
        async (lines) => {
          const lf = lines.join('\n');
          const crlf = lines.join('\r\n');
          const cr = lines.join('\r');
          const d = await promptDigest(lf);
          expect(await promptDigest(crlf)).toBe(d);
          expect(await promptDigest(cr)).toBe(d);
          expect(promptLength(crlf)).toBe(promptLength(lf));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('property: trailing whitespace never changes the digest; a changed non-space character always does', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.array(fc.constantFrom(' ', '\t', '\n', '\r\n', '\r', '\u00a0', '\u3000'), { maxLength: 5 }), async (t, tail) => {
        expect(await promptDigest(t + tail.join(''))).toBe(await promptDigest(t));
        expect(promptLength(t + tail.join(''))).toBe(promptLength(t));
        // appending a visible character is a different prompt
        expect(await promptDigest(t + 'x')).not.toBe(await promptDigest(t));
      }),
      { numRuns: 200 },
    );
  });

  it('property: the length is the code point count of the normalized text, astral characters once', async () => {
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        const normalized = referenceNormalize(t);
        expect(promptLength(t)).toBe(Array.from(normalized).length);
        // the digest hashes the UTF-8 a Node encoder produces (a lone surrogate as U+FFFD)
        expect(await promptDigest(t)).toBe(sha256(normalized));
      }),
      { numRuns: 300 },
    );
  });
});
