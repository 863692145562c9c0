/**
 * The one rule for "is this prompt the same text": how the runner and the server compare what
 * the agent reported taking (its prompt hook) with what was written into it (an inbox frame)
 * or typed at its terminal. Only a digest and a length cross the wire, never the words.
 *
 * Normalization: CRLF and lone CR become LF (terminals and input protocols disagree on line
 * endings), then trailing whitespace of the whole text is trimmed (agents strip the final
 * newline a paste or a submit adds). Nothing else: inner whitespace, case and Unicode form
 * are part of the text.
 *
 * Pure and shared: `globalThis.crypto.subtle` (Node 20 and browsers), no `node:` import.
 */

/**
 * @example normalizePrompt('fix it\r\nplease \n\n') // 'fix it\nplease'
 */
export function normalizePrompt(text: string): string {
  return text.replace(/\r\n?/g, '\n').trimEnd();
}

/**
 * Code points of the normalized text (an astral character such as an emoji counts once).
 * @example promptLength('héllo 👋\r\n') // 7
 */
export function promptLength(text: string): number {
  let n = 0;
  for (const _ of normalizePrompt(text)) n++;
  return n;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Lowercase hex SHA-256 of the UTF-8 of the normalized text (a lone surrogate encodes as
 * U+FFFD, as every UTF-8 encoder does).
 * @example await promptDigest('hi\r\n') === await promptDigest('hi') // true
 */
export async function promptDigest(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(normalizePrompt(text));
  const hash = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  let out = '';
  for (const b of hash) out += HEX[b]!;
  return out;
}

/** Code points a reported prompt or turn may have: far above any agent's input, inside every store's 32-bit integer column. */
export const MAX_PROMPT_LENGTH = 16_777_216;

/** What a prompt report carries: `digest` as `promptDigest` makes it. */
export const PROMPT_DIGEST_PATTERN = /^[0-9a-f]{64}$/;

/** Both halves of a prompt's identity, as a report carries them. */
export async function promptFingerprint(text: string): Promise<{ digest: string; length: number }> {
  return { digest: await promptDigest(text), length: promptLength(text) };
}
