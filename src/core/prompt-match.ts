/**
 * One normalization for every comparison of a prompt with what was written or typed
 * (docs/design/agent-runtimes.md): line endings as LF, trailing whitespace trimmed.
 * @example normalizePrompt('hi\r\nthere  \n') // 'hi\nthere'
 */
export function normalizePrompt(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\s+$/u, '');
}

/** Code points of the normalized text. @example promptLength('a😀') // 2 */
export function promptLength(text: string): number {
  return [...normalizePrompt(text)].length;
}

/** Lowercase hex SHA-256 of the normalized text's UTF-8 (Web Crypto, so core stays free of node:). */
export async function promptDigest(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(normalizePrompt(text));
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
