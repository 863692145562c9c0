/**
 * docs/design/terminal-channel.md: when a run at an agent terminal counts as witnessed.
 * Pure: the store hands over what the runner and the agent's hook reported for one run
 * (session, activation) and the time; this decides. The runner and the hook only report;
 * neither can say a run was witnessed.
 */

/** Whether the agent ran as another OS user than the runner that witnessed its terminal. */
export const WITNESS_ISOLATIONS = ['same-uid', 'other-uid'] as const;
export type WitnessIsolation = (typeof WITNESS_ISOLATIONS)[number];

/** A turn or report unmatched for less than this may still be matched (the runner sends the pair in order). */
export const TERMINAL_MATCH_GRACE_MS = 5_000;

/** How often a witnessing runner says it is alive (…/terminal/alive). */
export const WITNESS_HEARTBEAT_MS = 15_000;
/**
 * A live run whose witness said nothing for this long counts as ended without its closing
 * report: the runner was killed (its session stays running) or bypassed.
 */
export const WITNESS_SILENCE_MS = 45_000;

/** What the store knows about one run whose runner had a TTY. */
export interface TerminalRunFacts {
  /** a witness credential was minted for this activation (a human token was presented) */
  witnessMinted: boolean;
  /** every turn the runner relayed: consumed = a witnessed human message was recorded from it */
  turns: readonly { reportedAt: string; consumed: boolean }[];
  /** every prompt the agent's hook reported: matched to a delivered item, a witnessed turn or the run's --prompt */
  reports: readonly { reportedAt: string; matched: boolean }[];
  /** the closing report, when it arrived, with the number of turns it said it reported */
  close: { turns: number } | null;
  /** the activation is the session's current one and the session is running */
  live: boolean;
  /** the witness's last sign of life (its latest heartbeat, else its mint); null without a witness */
  heardAt: string | null;
}

export interface TerminalRunVerdict {
  witnessed: boolean;
  /** the earliest turn or report that matched nothing, when there is one */
  firstUnmatchedAt: string | null;
  /** the run lacks only matches for turns or reports younger than the grace: they may still come */
  matchPending: boolean;
}

function withinGrace(at: string, now: string): boolean {
  return Date.parse(now) - Date.parse(at) < TERMINAL_MATCH_GRACE_MS;
}

/**
 * A run is witnessed iff a witness was minted, every turn was consumed by a witnessed
 * human message, every prompt report was matched, and the run closed with the count of its
 * turns — or is still live and its witness was heard within WITNESS_SILENCE_MS. An unmatched turn or report is never witnessed, however young:
 * the gate must not answer "none" while it is open. The grace only says whether it may still
 * be matched (the runner sends the agent's report, then the witnessed prompt).
 * @example
 * decideTerminalRun({ witnessMinted: true, turns: [], reports: [], close: { turns: 0 }, live: false, heardAt: null }, now)
 * // { witnessed: true, firstUnmatchedAt: null, matchPending: false }
 */
export function decideTerminalRun(run: TerminalRunFacts, now: string): TerminalRunVerdict {
  const unmatched = [...run.turns.filter((t) => !t.consumed), ...run.reports.filter((r) => !r.matched)].map((x) => x.reportedAt).sort();
  const firstUnmatchedAt = unmatched[0] ?? null;
  const heard = run.heardAt !== null && Date.parse(now) - Date.parse(run.heardAt) < WITNESS_SILENCE_MS;
  const closedRight = run.close !== null ? run.close.turns === run.turns.length : run.live && heard;
  return {
    witnessed: run.witnessMinted && firstUnmatchedAt === null && closedRight,
    firstUnmatchedAt,
    // only the young unmatched items stand between this run and witnessed
    matchPending: run.witnessMinted && closedRight && unmatched.length > 0 && unmatched.every((at) => withinGrace(at, now)),
  };
}
