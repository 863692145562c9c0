import type { Genesis } from './genesis.js';

/**
 * docs/human-messages.md: absence is an answer only when capture could have fired.
 * Pure: the candidate channels of a hierarchy, judged against the coverage log over the
 * hierarchy's lifetime.
 */
export const CAPTURE_CHANNELS = ['web_ui', 'slack', 'cli'] as const;
export type CaptureChannel = (typeof CAPTURE_CHANNELS)[number];

export interface ChannelChange {
  channel: CaptureChannel;
  instrumented: boolean;
  at: string; // ISO time
}

type GapKind = 'not-instrumented' | 'instrumented-late' | 'unknown-origin' | 'deleted-session' | 'terminal-unwitnessed';

/**
 * docs/design/terminal-channel.md: one run of a session whose runner had a TTY on standard
 * input (it said so when it attached). A person may have typed into the agent there.
 * `witnessed` is true only when every turn the runner relayed was attributed (a witnessed
 * human message or a delivered inbox item) and the run closed (core/terminal-witness.ts
 * decides it); `firstUnmatchedAt` is the earliest turn or prompt report that matched nothing.
 */
export interface TerminalRun {
  activation: number;
  attachedAt: string; // ISO time
  witnessed: boolean;
  firstUnmatchedAt?: string | null;
  /** its unmatched turns and reports are all within the grace: they may still be matched */
  matchPending?: boolean;
}

export interface CoverageGap {
  channel: CaptureChannel | 'unknown' | 'deleted' | 'terminal';
  kind: GapKind;
  /** the hierarchy's sessions this gap concerns */
  sessionIds: number[];
  /** instrumented-late: when capture (last) began */
  since?: string;
  /** deleted-session: the deleted session and how many human messages it held */
  deletedSessionId?: number;
  humanMessages?: number;
  /** terminal-unwitnessed: when the first unwitnessed run with a TTY attached, and which runs */
  startedAt?: string;
  activations?: number[];
  /** terminal-unwitnessed: the earliest turn or prompt report of those runs that matched nothing */
  unmatchedAt?: string;
  /** terminal-unwitnessed: that turn or report is young enough that it may still be matched */
  matchPending?: boolean;
}

type CoverageSession = { id: number; genesis: Genesis; terminalRuns?: readonly TerminalRun[] };

/**
 * Which channels a human could have used to speak into a hierarchy (docs/human-messages.md's table). A
 * session is a `terminal` candidate when any of its runs, current or past, had a TTY.
 * @example candidateChannels([{id: 1, genesis: 'api', terminalRuns: [run]}]) // web_ui: [1], terminal: [1]
 */
export function candidateChannels(sessions: readonly CoverageSession[]): Map<CaptureChannel | 'unknown' | 'terminal', number[]> {
  const out = new Map<CaptureChannel | 'unknown' | 'terminal', number[]>();
  const add = (channel: CaptureChannel | 'unknown' | 'terminal', id: number) => {
    const list = out.get(channel) ?? [];
    list.push(id);
    out.set(channel, list);
  };
  for (const s of [...sessions].sort((a, b) => a.id - b.id)) {
    // any session can be followed up in the browser
    add('web_ui', s.id);
    if (s.genesis === 'slack') add('slack', s.id);
    if (s.genesis === 'cli') add('cli', s.id);
    if (s.genesis === 'unknown') add('unknown', s.id);
    if ((s.terminalRuns ?? []).length > 0) add('terminal', s.id);
  }
  return out;
}

/**
 * The terminal gaps of a hierarchy: one per session with a run whose TTY turns were not all
 * attributed. A past run stays a gap after a later run without a TTY: what was typed then
 * is still unaccounted for. Sessions without a TTY run (a machine started them) add nothing.
 * @example terminalGaps([{id: 4, genesis: 'api', terminalRuns: [{activation: 1, attachedAt: t, witnessed: false}]}])
 * // [{channel: 'terminal', kind: 'terminal-unwitnessed', sessionIds: [4], startedAt: t, activations: [1]}]
 */
export function terminalGaps(sessions: readonly CoverageSession[]): CoverageGap[] {
  const gaps: CoverageGap[] = [];
  for (const s of [...sessions].sort((a, b) => a.id - b.id)) {
    const open = (s.terminalRuns ?? []).filter((r) => !r.witnessed).sort((a, b) => a.activation - b.activation);
    if (open.length === 0) continue;
    const startedAt = open.reduce((min, r) => (r.attachedAt < min ? r.attachedAt : min), open[0]!.attachedAt);
    const withUnmatched = open.filter((r) => r.firstUnmatchedAt);
    const unmatched = withUnmatched.map((r) => r.firstUnmatchedAt!).sort()[0];
    // pending only when every open run is still within the grace (nothing else makes it a gap)
    const pending = unmatched !== undefined && open.every((r) => r.matchPending === true);
    gaps.push({
      channel: 'terminal',
      kind: 'terminal-unwitnessed',
      sessionIds: [s.id],
      startedAt,
      activations: open.map((r) => r.activation),
      ...(unmatched ? { unmatchedAt: unmatched } : {}),
      ...(pending ? { matchPending: true } : {}),
    });
  }
  return gaps;
}

/**
 * Whether a channel was instrumented for the whole time since `since`, from its log.
 * Before the first log entry a channel counts as not instrumented (capture did not exist).
 */
export function instrumentedSince(
  log: readonly ChannelChange[],
  channel: CaptureChannel,
  since: string,
): { whole: boolean; now: boolean; began: string | null } {
  const entries = log.filter((e) => e.channel === channel).sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  let atStart = false;
  let now = false;
  let began: string | null = null;
  let brokenAfterStart = false;
  for (const e of entries) {
    if (e.at <= since) atStart = e.instrumented;
    else if (!e.instrumented) brokenAfterStart = true;
    if (e.instrumented && !now) began = e.at;
    now = e.instrumented;
  }
  return { whole: atStart && !brokenAfterStart && now, now, began: now ? began : null };
}

/**
 * The gaps of a hierarchy: every candidate channel that was not instrumented for the whole
 * time since the hierarchy's oldest session was created, unknown origins, always, and every
 * run at an agent terminal that was not witnessed.
 */
export function coverageGaps(sessions: readonly (CoverageSession & { createdAt: string })[], log: readonly ChannelChange[]): CoverageGap[] {
  if (sessions.length === 0) return [];
  const oldest = sessions.reduce((min, s) => (s.createdAt < min ? s.createdAt : min), sessions[0]!.createdAt);
  const gaps: CoverageGap[] = [];
  for (const [channel, ids] of candidateChannels(sessions)) {
    if (channel === 'unknown') {
      gaps.push({ channel: 'unknown', kind: 'unknown-origin', sessionIds: ids });
      continue;
    }
    if (channel === 'terminal') {
      gaps.push(...terminalGaps(sessions));
      continue;
    }
    const state = instrumentedSince(log, channel, oldest);
    if (state.whole) continue;
    if (!state.now) gaps.push({ channel, kind: 'not-instrumented', sessionIds: ids });
    else gaps.push({ channel, kind: 'instrumented-late', sessionIds: ids, since: state.began! });
  }
  return gaps;
}
