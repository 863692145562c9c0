/**
 * docs/human-messages.md: user-controlled text (titles, message content, roster notes) must not
 * forge structure in a markdown rendering — no closing a block, opening a bullet, heading or
 * quote, and no forged `here` entry.
 */

// after escapeInline, what can still open structure at a line start
const STRUCTURE_START = /^(\s*)([-+]|\d+[.)]|~{3,}|={3,})/;

/**
 * The affirmative-absence sentence (docs/human-messages.md) must never appear where a human or an agent
 * wrote it: a zero-width space after its first word keeps the words and breaks the match.
 */
const ABSENCE_WORDS = /(no)(\s+named\s+human\s+authored\s+any\s+message\s+in\s+this\s+hierarchy)/gi;

/** Escapes markdown-significant characters so text renders as the same words, inert. */
function escapeInline(text: string): string {
  return text.replace(/([\\`*_[\]<>|#])/g, '\\$1').replace(ABSENCE_WORDS, '$1\u200b$2');
}

/**
 * Text on one line: newlines and control characters become spaces, markup is escaped.
 * @example sanitizeInline('hi\n- here: x') // 'hi - here: x' (with '-' harmless mid-line)
 */
export function sanitizeInline(text: string): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const safe = escapeInline(flat);
  return STRUCTURE_START.test(safe) ? `\\${safe}` : safe;
}

/**
 * Multi-line content indented under its entry: every line is prefixed with `indent`, and a
 * line that would start structure is escaped, so nothing can close the entry or open another.
 */
export function sanitizeBlock(text: string, indent: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f\u2028\u2029]/g, ' ')
    .split('\n')
    .map((line) => {
      let safe = escapeInline(line);
      if (STRUCTURE_START.test(safe)) safe = safe.replace(/^(\s*)/, '$1\\');
      return `${indent}${safe}`;
    })
    .join('\n');
}
