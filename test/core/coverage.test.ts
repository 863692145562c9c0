import { describe, expect, it } from 'vitest';
import { candidateChannels, coverageGaps, instrumentedSince, type ChannelChange } from '../../src/core/coverage.js';
import type { Genesis } from '../../src/core/genesis.js';

/** spec 03 "Capture coverage": which channels a hierarchy could have been spoken into, judged over time. */
const T0 = '2026-11-01T00:00:00.000Z'; // capture configured
const T1 = '2026-11-02T00:00:00.000Z'; // the hierarchy's oldest session
const T2 = '2026-11-03T00:00:00.000Z';
const T3 = '2026-11-04T00:00:00.000Z';

const session = (id: number, genesis: Genesis, createdAt = T1) => ({ id, genesis, createdAt });
const on = (channel: ChannelChange['channel'], at: string): ChannelChange => ({ channel, instrumented: true, at });
const off = (channel: ChannelChange['channel'], at: string): ChannelChange => ({ channel, instrumented: false, at });
/** every channel instrumented since before the hierarchy began */
const ALL_ON = [on('web_ui', T0), on('slack', T0), on('cli', T0)];

describe('candidate channels (spec 03 table)', () => {
  it('every hierarchy has the web UI; a cli-genesis session adds the CLI for that session only', () => {
    const m = candidateChannels([session(2, 'cli'), session(1, 'api')]);
    expect(Object.fromEntries(m)).toEqual({ web_ui: [1, 2], cli: [2] });
  });

  it('an unknown-genesis session is a candidate of its own', () => {
    expect(Object.fromEntries(candidateChannels([session(5, 'unknown'), session(6, 'web_ui')]))).toEqual({ web_ui: [5, 6], unknown: [5] });
  });

  it('api, github, schedule and system add no channel: no human is at their boundary', () => {
    const m = candidateChannels([session(1, 'api'), session(2, 'github'), session(3, 'schedule'), session(4, 'system')]);
    expect([...m.keys()]).toEqual(['web_ui']);
    expect(m.get('web_ui')).toEqual([1, 2, 3, 4]);
  });
});

describe('coverage gaps', () => {
  it('the CLI: a gap naming only the cli-started sessions while no human token was ever active; none once it was, for the whole lifetime', () => {
    const hierarchy = [session(1, 'api'), session(2, 'cli'), session(3, 'cli')];
    expect(coverageGaps(hierarchy, [on('web_ui', T0)])).toEqual([{ channel: 'cli', kind: 'not-instrumented', sessionIds: [2, 3] }]);
    expect(coverageGaps(hierarchy, [on('web_ui', T0), on('cli', T0)])).toEqual([]);
    // the CLI instrumented only after the hierarchy began: late, naming when
    expect(coverageGaps(hierarchy, [on('web_ui', T0), on('cli', T2)])).toEqual([{ channel: 'cli', kind: 'instrumented-late', sessionIds: [2, 3], since: T2 }]);
  });

  it('unknown is always a gap, even when every channel was instrumented throughout', () => {
    expect(coverageGaps([session(1, 'api'), session(7, 'unknown')], ALL_ON)).toEqual([{ channel: 'unknown', kind: 'unknown-origin', sessionIds: [7] }]);
  });

  it('api, github, schedule and system hierarchies have no gap when the web UI was instrumented throughout — even with Slack and the CLI never configured', () => {
    const hierarchy = [session(1, 'api'), session(2, 'github'), session(3, 'schedule'), session(4, 'system')];
    expect(coverageGaps(hierarchy, [on('web_ui', T0)])).toEqual([]);
    // and their only possible gap is the web UI
    expect(coverageGaps(hierarchy, [])).toEqual([{ channel: 'web_ui', kind: 'not-instrumented', sessionIds: [1, 2, 3, 4] }]);
  });

  it('instrumented, then off, then on again after the hierarchy began: instrumented-late since the last start', () => {
    const log = [on('web_ui', T0), off('web_ui', T2), on('web_ui', T3)];
    expect(instrumentedSince(log, 'web_ui', T1)).toEqual({ whole: false, now: true, began: T3 });
    expect(coverageGaps([session(1, 'api')], log)).toEqual([{ channel: 'web_ui', kind: 'instrumented-late', sessionIds: [1], since: T3 }]);
    // turned off and not back on: not instrumented
    expect(coverageGaps([session(1, 'api')], [on('web_ui', T0), off('web_ui', T2)])).toEqual([{ channel: 'web_ui', kind: 'not-instrumented', sessionIds: [1] }]);
    // the same flap entirely before the hierarchy began is no gap at all
    expect(coverageGaps([session(1, 'api', T3)], log)).toEqual([]);
  });

  it('the oldest session of the hierarchy decides, not the newest', () => {
    const log = [on('web_ui', T2)];
    expect(coverageGaps([session(9, 'api', T3)], log)).toEqual([]);
    expect(coverageGaps([session(9, 'api', T3), session(8, 'api', T1)], log)).toEqual([{ channel: 'web_ui', kind: 'instrumented-late', sessionIds: [8, 9], since: T2 }]);
  });

  it('a log entry for one channel never instruments another', () => {
    expect(instrumentedSince([on('slack', T0)], 'cli', T1)).toEqual({ whole: false, now: false, began: null });
  });
});
