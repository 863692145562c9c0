/** Unicode-code-point text helpers: lengths and cuts never split a code point (docs/concepts.md, docs/human-messages.md). */

export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The first `max` code points of `text`. */
export function cutCodePoints(text: string, max: number): string {
  if (max <= 0) return '';
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (n === max) break;
    out += ch;
    n++;
  }
  return out;
}

/** Lone surrogates are not text: they have no UTF-8 encoding, so no store, digest or export can hold them. */
export function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
