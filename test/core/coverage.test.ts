import { describe, expect, it } from 'vitest';
import { candidateChannels, coverageGaps, instrumentedSince, terminalGaps, type ChannelChange } from '../../src/core/coverage.js';
import type { Genesis } from '../../src/core/genesis.js';

/** docs/design/capture.md "Capture coverage": which channels a hierarchy could have been spoken into, judged over time. */
const T0 = '2026-11-01T00:00:00.000Z'; // capture configured
const T1 = '2026-11-02T00:00:00.000Z'; // the hierarchy's oldest session
const T2 = '2026-11-03T00:00:00.000Z';
const T3 = '2026-11-04T00:00:00.000Z';

const session = (id: number, genesis: Genesis, createdAt = T1) => ({ id, genesis, createdAt });
const on = (channel: ChannelChange['channel'], at: string): ChannelChange => ({ channel, instrumented: true, at });
const off = (channel: ChannelChange['channel'], at: string): ChannelChange => ({ channel, instrumented: false, at });
/** every channel instrumented since before the hierarchy began */
const ALL_ON = [on('web_ui', T0), on('slack', T0), on('cli', T0)];

describe('candidate channels (docs/design/capture.md table)', () => {
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
    expect(coverageGaps([session(1, 'api')], [on('web_ui', T0), off('web_ui', T2)])).toEqual([
      { channel: 'web_ui', kind: 'not-instrumented', sessionIds: [1] },
    ]);
    // the same flap entirely before the hierarchy began is no gap at all
    expect(coverageGaps([session(1, 'api', T3)], log)).toEqual([]);
  });

  it('the oldest session of the hierarchy decides, not the newest', () => {
    const log = [on('web_ui', T2)];
    expect(coverageGaps([session(9, 'api', T3)], log)).toEqual([]);
    expect(coverageGaps([session(9, 'api', T3), session(8, 'api', T1)], log)).toEqual([
      { channel: 'web_ui', kind: 'instrumented-late', sessionIds: [8, 9], since: T2 },
    ]);
  });

  it('a log entry for one channel never instruments another', () => {
    expect(instrumentedSince([on('slack', T0)], 'cli', T1)).toEqual({ whole: false, now: false, began: null });
  });
});

describe('the agent terminal (a run whose runner had a TTY)', () => {
  const run = (activation: number, attachedAt: string, witnessed = false) => ({ activation, attachedAt, witnessed });
  const withRuns = (id: number, runs: ReturnType<typeof run>[], genesis: Genesis = 'api') => ({ ...session(id, genesis), terminalRuns: runs });

  it('a session with a TTY run is a terminal candidate; one without (a machine started it) is not', () => {
    const m = candidateChannels([withRuns(1, [run(1, T1)]), withRuns(2, []), session(3, 'api')]);
    expect(Object.fromEntries(m)).toEqual({ web_ui: [1, 2, 3], terminal: [1] });
  });

  it('an unwitnessed TTY run is a gap naming the session and when it started, even with every channel instrumented; the rest of the hierarchy adds none', () => {
    expect(coverageGaps([session(1, 'api'), withRuns(2, [run(1, T2)]), withRuns(3, [])], ALL_ON)).toEqual([
      { channel: 'terminal', kind: 'terminal-unwitnessed', sessionIds: [2], startedAt: T2, activations: [1] },
    ]);
    // positive control beside it: the same hierarchy without the TTY run has no gap at all
    expect(coverageGaps([session(1, 'api'), withRuns(2, []), withRuns(3, [])], ALL_ON)).toEqual([]);
  });

  it('a past TTY run stays a gap after later runs without one; several TTY runs are one gap per session, from the first', () => {
    // activation 1 had a TTY, activation 2 did not (it has no run here): still the gap of activation 1
    expect(terminalGaps([withRuns(4, [run(1, T1)])])).toEqual([
      { channel: 'terminal', kind: 'terminal-unwitnessed', sessionIds: [4], startedAt: T1, activations: [1] },
    ]);
    expect(terminalGaps([withRuns(5, [run(3, T3), run(1, T1)]), withRuns(4, [run(2, T2)])])).toEqual([
      { channel: 'terminal', kind: 'terminal-unwitnessed', sessionIds: [4], startedAt: T2, activations: [2] },
      { channel: 'terminal', kind: 'terminal-unwitnessed', sessionIds: [5], startedAt: T1, activations: [1, 3] },
    ]);
  });

  it('a witnessed run is no gap (the later terminal witness flips it per run); an unwitnessed one beside it still is', () => {
    expect(coverageGaps([withRuns(6, [run(1, T1, true)])], ALL_ON)).toEqual([]);
    expect(coverageGaps([withRuns(6, [run(1, T1, true), run(2, T2)])], ALL_ON)).toEqual([
      { channel: 'terminal', kind: 'terminal-unwitnessed', sessionIds: [6], startedAt: T2, activations: [2] },
    ]);
  });

  it('the terminal gap stands beside a channel gap; neither hides the other', () => {
    const gaps = coverageGaps([withRuns(7, [run(1, T1)], 'cli')], [on('web_ui', T0)]);
    expect(gaps.map((g) => [g.channel, g.kind])).toEqual([
      ['cli', 'not-instrumented'],
      ['terminal', 'terminal-unwitnessed'],
    ]);
  });
});
