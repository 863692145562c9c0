import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalGaps } from '../../src/core/coverage.js';
import { decideTerminalRun, TERMINAL_MATCH_GRACE_MS, WITNESS_SILENCE_MS, type TerminalRunFacts } from '../../src/core/terminal-witness.js';
import { looksLikeWarrantToken, tokenKindOf } from '../../src/core/tokens.js';

/** docs/design/terminal-channel.md: when a run at an agent terminal counts as witnessed. */
const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const clean: TerminalRunFacts = { witnessMinted: true, turns: [], reports: [], close: { turns: 0 }, live: false, heardAt: at(0) };

describe('decideTerminalRun', () => {
  it('witnessed: minted, every turn consumed, every report matched, closed with the count', () => {
    const run: TerminalRunFacts = {
      ...clean,
      turns: [{ reportedAt: at(0), consumed: true }],
      reports: [{ reportedAt: at(10), matched: true }],
      close: { turns: 1 },
    };
    expect(decideTerminalRun(run, at(60_000))).toEqual({ witnessed: true, firstUnmatchedAt: null, matchPending: false });
  });

  it('a live run without its closing report is witnessed only while its witness is heard from: a killed runner falls silent and is a gap', () => {
    const live: TerminalRunFacts = { ...clean, close: null, live: true, heardAt: at(0) };
    expect(decideTerminalRun(live, at(WITNESS_SILENCE_MS - 1)).witnessed).toBe(true);
    expect(decideTerminalRun(live, at(WITNESS_SILENCE_MS)).witnessed).toBe(false);
    // a heartbeat keeps it witnessed; a closed run needs none
    expect(decideTerminalRun({ ...live, heardAt: at(WITNESS_SILENCE_MS) }, at(WITNESS_SILENCE_MS + 1000)).witnessed).toBe(true);
    expect(decideTerminalRun({ ...clean, heardAt: at(0) }, at(10 * WITNESS_SILENCE_MS)).witnessed).toBe(true);
  });

  it('no witness minted (no human token): never witnessed, even with nothing typed', () => {
    expect(decideTerminalRun({ ...clean, witnessMinted: false }, at(0)).witnessed).toBe(false);
  });

  it('an unconsumed turn or unmatched report is never witnessed, however young; within the grace it is only "pending", and it names its time', () => {
    const run: TerminalRunFacts = { ...clean, turns: [{ reportedAt: at(1000), consumed: false }], close: { turns: 1 } };
    expect(decideTerminalRun(run, at(1000))).toEqual({ witnessed: false, firstUnmatchedAt: at(1000), matchPending: true });
    expect(decideTerminalRun(run, at(1000 + TERMINAL_MATCH_GRACE_MS - 1))).toEqual({ witnessed: false, firstUnmatchedAt: at(1000), matchPending: true });
    expect(decideTerminalRun(run, at(1000 + TERMINAL_MATCH_GRACE_MS))).toEqual({ witnessed: false, firstUnmatchedAt: at(1000), matchPending: false });
    const reported: TerminalRunFacts = {
      ...clean,
      reports: [
        { reportedAt: at(7000), matched: false },
        { reportedAt: at(2000), matched: false },
      ],
    };
    expect(decideTerminalRun(reported, at(60_000))).toEqual({ witnessed: false, firstUnmatchedAt: at(2000), matchPending: false });
    // one old item settles it, however young the others
    expect(decideTerminalRun(reported, at(7000 + 10)).matchPending).toBe(false);
    // nothing to wait for when the run is a gap anyway (no witness)
    expect(decideTerminalRun({ ...run, witnessMinted: false }, at(1000)).matchPending).toBe(false);
  });

  it('the close: a wrong count is a gap; no close is a gap unless the run is still live (and heard from)', () => {
    const turns = [{ reportedAt: at(0), consumed: true }];
    expect(decideTerminalRun({ ...clean, turns, close: { turns: 2 } }, at(60_000)).witnessed).toBe(false);
    expect(decideTerminalRun({ ...clean, turns, close: { turns: 0 } }, at(60_000)).witnessed).toBe(false);
    expect(decideTerminalRun({ ...clean, turns, close: null, live: false }, at(60_000))).toEqual({
      witnessed: false,
      firstUnmatchedAt: null,
      matchPending: false,
    });
    expect(decideTerminalRun({ ...clean, turns, close: null, live: true, heardAt: at(50_000) }, at(60_000)).witnessed).toBe(true);
  });

  it('the gap carries the earliest unmatched time of its runs', () => {
    const gaps = terminalGaps([
      {
        id: 4,
        genesis: 'api',
        terminalRuns: [
          { activation: 1, attachedAt: at(0), witnessed: false, firstUnmatchedAt: at(9000), matchPending: true },
          { activation: 2, attachedAt: at(5000), witnessed: false, firstUnmatchedAt: at(7000), matchPending: false },
          { activation: 3, attachedAt: at(8000), witnessed: true, firstUnmatchedAt: null },
        ],
      },
    ]);
    expect(gaps).toEqual([
      { channel: 'terminal', kind: 'terminal-unwitnessed', sessionIds: [4], startedAt: at(0), activations: [1, 2], unmatchedAt: at(7000) },
    ]);
    const young = terminalGaps([
      { id: 5, genesis: 'api', terminalRuns: [{ activation: 1, attachedAt: at(0), witnessed: false, firstUnmatchedAt: at(100), matchPending: true }] },
    ]);
    expect(young).toEqual([
      { channel: 'terminal', kind: 'terminal-unwitnessed', sessionIds: [5], startedAt: at(0), activations: [1], unmatchedAt: at(100), matchPending: true },
    ]);
  });
});

/**
 * A run as a random sequence of what can happen to it: turns relayed, reports made, some of
 * them consumed or matched, a close with any count, time passing. Whatever the sequence, the
 * rule never calls a run witnessed while a settled turn has no witnessed human message, a
 * settled report matched nothing, no witness was minted, or the run ended unclosed or miscounted.
 */
const step = fc.oneof(
  fc.record({ kind: fc.constant('turn' as const), consumed: fc.boolean() }),
  fc.record({ kind: fc.constant('report' as const), matched: fc.boolean() }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 3 * TERMINAL_MATCH_GRACE_MS }) }),
);
const runArb = fc.record({
  steps: fc.array(step, { maxLength: 30 }),
  witnessMinted: fc.boolean(),
  close: fc.option(fc.integer({ min: 0, max: 12 }), { nil: null }),
  live: fc.boolean(),
  heardAgoMs: fc.integer({ min: 0, max: 2 * WITNESS_SILENCE_MS }),
  settleMs: fc.integer({ min: 0, max: 3 * TERMINAL_MATCH_GRACE_MS }),
});

type RunInput = typeof runArb extends fc.Arbitrary<infer T> ? T : never;

function build(r: RunInput): { facts: TerminalRunFacts; now: string } {
  let t = 0;
  const turns: { reportedAt: string; consumed: boolean }[] = [];
  const reports: { reportedAt: string; matched: boolean }[] = [];
  for (const s of r.steps) {
    if (s.kind === 'wait') t += s.ms;
    else if (s.kind === 'turn') turns.push({ reportedAt: at(t), consumed: s.consumed });
    else reports.push({ reportedAt: at(t), matched: s.matched });
  }
  const now = t + r.settleMs;
  return {
    facts: {
      witnessMinted: r.witnessMinted,
      turns,
      reports,
      close: r.close === null ? null : { turns: r.close },
      live: r.live,
      heardAt: at(now - r.heardAgoMs),
    },
    now: at(now),
  };
}

describe('decideTerminalRun (property)', () => {
  it('no sequence of turns and reports is witnessed unless every turn has its witnessed human message, every report matched, a witness ran and the close is right — at any time, inside the grace too', () => {
    fc.assert(
      fc.property(runArb, (r) => {
        const { facts, now } = build(r);
        const verdict = decideTerminalRun(facts, now);
        const everyTurnWitnessed = facts.turns.every((x) => x.consumed);
        const everyReportMatched = facts.reports.every((x) => x.matched);
        const heard = Date.parse(now) - Date.parse(facts.heardAt!) < WITNESS_SILENCE_MS;
        const closeRight = facts.close ? facts.close.turns === facts.turns.length : facts.live && heard;
        expect(verdict.witnessed).toBe(everyTurnWitnessed && everyReportMatched && facts.witnessMinted && closeRight);
        // the time it names is the earliest unmatched one
        const times = [...facts.turns.filter((x) => !x.consumed), ...facts.reports.filter((x) => !x.matched)].map((x) => x.reportedAt).sort();
        expect(verdict.firstUnmatchedAt).toBe(times[0] ?? null);
        // pending: only young unmatched items stand in the way
        const young = times.length > 0 && times.every((t) => Date.parse(now) - Date.parse(t) < TERMINAL_MATCH_GRACE_MS);
        expect(verdict.matchPending).toBe(young && facts.witnessMinted && closeRight);
        if (verdict.witnessed) expect(verdict.matchPending).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('a run that is not witnessed yields a terminal gap for its session, so the gate can never answer none over it', () => {
    fc.assert(
      fc.property(runArb, (r) => {
        const { facts, now } = build(r);
        const verdict = decideTerminalRun(facts, now);
        const gaps = terminalGaps([{ id: 1, genesis: 'api', terminalRuns: [{ activation: 1, attachedAt: at(0), ...verdict }] }]);
        expect(gaps.length).toBe(verdict.witnessed ? 0 : 1);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the witness credential kind', () => {
  it('has its own prefix, recognized and stripped like every Warrant token', () => {
    expect(tokenKindOf('wrt_t_abcdefghijklmnop')).toBe('witness');
    expect(looksLikeWarrantToken('wrt_t_abcdefghijklmnopqrstu')).toBe(true);
    expect(looksLikeWarrantToken('wrt_x_abcdefghijklmnopqrstu')).toBe(false);
  });
});
