import { cutCodePoints } from './text.js';

export const MAX_TITLE_LENGTH = 80;
const MAX_SLUG_LENGTH = 60;

/**
 * docs/concepts.md: derived from the human's own words — the first non-empty line,
 * at most 80 code points. Returns null when the text has no words.
 * @example deriveTitle('Fix the flaky deploy\nmore context') // 'Fix the flaky deploy'
 */
export function deriveTitle(text: string | null | undefined): string | null {
  if (!text) return null;
  const line = text
    .split(/\r\n|\r|\n/)
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .find((l) => l !== '');
  if (!line) return null;
  return cutCodePoints(line, MAX_TITLE_LENGTH).trim();
}

/** A failed session with no title is named from its failure reason (docs/concepts.md). */
export function titleFromFailure(reason: string | null | undefined): string {
  return deriveTitle(`Failed: ${reason && reason.trim() !== '' ? reason : 'unknown error'}`) ?? 'Failed';
}

/**
 * The slug is derived from the first title applied and never changes afterwards.
 * @example slugify('Ship the Hotfix!') // 'ship-the-hotfix'
 */
export function slugify(title: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = cutCodePoints(base, MAX_SLUG_LENGTH).replace(/-+$/g, '');
  return cut === '' ? 'session' : cut;
}
