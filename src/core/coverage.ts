import type { Genesis } from './genesis.js';

/**
 * spec 03 "Capture coverage": absence is an answer only when capture could have fired.
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

export type GapKind = 'not-instrumented' | 'instrumented-late' | 'unknown-origin' | 'deleted-session';

export interface CoverageGap {
  channel: CaptureChannel | 'unknown' | 'deleted';
  kind: GapKind;
  /** the hierarchy's sessions this gap concerns */
  sessionIds: number[];
  /** instrumented-late: when capture (last) began */
  since?: string;
  /** deleted-session: the deleted session and how many human messages it held */
  deletedSessionId?: number;
  humanMessages?: number;
}

/** Which channels a human could have used to speak into a hierarchy (spec 03's table). */
export function candidateChannels(sessions: readonly { id: number; genesis: Genesis }[]): Map<CaptureChannel | 'unknown', number[]> {
  const out = new Map<CaptureChannel | 'unknown', number[]>();
  const add = (channel: CaptureChannel | 'unknown', id: number) => {
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
  }
  return out;
}

/**
 * Whether a channel was instrumented for the whole time since `since`, from its log.
 * Before the first log entry a channel counts as not instrumented (capture did not exist).
 */
export function instrumentedSince(log: readonly ChannelChange[], channel: CaptureChannel, since: string): { whole: boolean; now: boolean; began: string | null } {
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
 * time since the hierarchy's oldest session was created, plus unknown origins, always.
 */
export function coverageGaps(
  sessions: readonly { id: number; genesis: Genesis; createdAt: string }[],
  log: readonly ChannelChange[],
): CoverageGap[] {
  if (sessions.length === 0) return [];
  const oldest = sessions.reduce((min, s) => (s.createdAt < min ? s.createdAt : min), sessions[0]!.createdAt);
  const gaps: CoverageGap[] = [];
  for (const [channel, ids] of candidateChannels(sessions)) {
    if (channel === 'unknown') {
      gaps.push({ channel: 'unknown', kind: 'unknown-origin', sessionIds: ids });
      continue;
    }
    const state = instrumentedSince(log, channel, oldest);
    if (state.whole) continue;
    if (!state.now) gaps.push({ channel, kind: 'not-instrumented', sessionIds: ids });
    else gaps.push({ channel, kind: 'instrumented-late', sessionIds: ids, since: state.began! });
  }
  return gaps;
}
