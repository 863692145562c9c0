import { codePointLength, cutCodePoints } from './text.js';
import type { CoverageGap } from './coverage.js';

/**
 * docs/human-messages.md: the exact sentence agent policies key on. It appears only when the record is empty
 * and every channel of the hierarchy was instrumented for its whole lifetime — never beside a
 * gap, never beside a record (a withdrawn one is still a record).
 */
export const AFFIRMATIVE_ABSENCE = 'No named human authored any message in this hierarchy.';

export type Scope = 'here' | 'elsewhere';

/** The gate's answer (docs/human-messages.md). */
export type WarrantAnswer = 'here' | 'elsewhere' | 'none' | 'cannot-say';

/**
 * Decided in this order: here when a message that was not withdrawn is on this session; else
 * elsewhere when one is elsewhere in the hierarchy; else none only when there is no gap and
 * the walk was not truncated; else cannot-say. Withdrawn messages are never evidence.
 * @example decideWarrant({here: 0, elsewhere: 2}, 0, false) // 'elsewhere'
 */
export function decideWarrant(live: { here: number; elsewhere: number }, gapCount: number, truncated: boolean): WarrantAnswer {
  if (live.here > 0) return 'here';
  if (live.elsewhere > 0) return 'elsewhere';
  if (gapCount === 0 && !truncated) return 'none';
  return 'cannot-say';
}

/** Whether the affirmative-absence sentence may be said: no record at all, no gap, a complete walk. */
export function isAffirmativeAbsence(total: { here: number; elsewhere: number }, gaps: readonly CoverageGap[], truncated: boolean): boolean {
  return total.here === 0 && total.elsewhere === 0 && gaps.length === 0 && !truncated;
}

/** docs/human-messages.md: per scope, and content cut at 300 code points. */
export const SUMMARY_PER_SCOPE = 5;
const SUMMARY_CUT = 300;

interface CutText {
  text: string;
  /** the real length in code points when the text was cut, else null */
  cutFrom: number | null;
}

/** @example cutContent('x'.repeat(301)) // {text: 'x'.repeat(300), cutFrom: 301} */
export function cutContent(content: string, max = SUMMARY_CUT): CutText {
  const length = codePointLength(content);
  return length > max ? { text: cutCodePoints(content, max), cutFrom: length } : { text: content, cutFrom: null };
}
