import { describe, expect, it } from 'vitest';
import { benchExitCode, formatTable, missedRows, type BenchRow } from '../../bench/bench-kit.js';

/** `npm run bench -- --strict` fails on a missed target; the plain run only reports. */
describe("the bench's strict exit code", () => {
  const row = (workload: string, met: BenchRow['met']): BenchRow => ({
    module: 'm',
    dialect: 'sqlite',
    workload,
    value: '1',
    target: met == null ? '' : 't',
    met,
  });
  const allMet = [row('baseline', null), row('fast enough', true), row('informational', undefined)];
  const oneMissed = [...allMet, row('too slow', false)];

  it('prints NO for the missed row and yes for the met one, nothing for informational rows', () => {
    const lines = formatTable(oneMissed).split('\n').slice(2);
    expect(lines.map((l) => l.split('|').at(-1)!.trim())).toEqual(['', 'yes', '', 'NO']);
    expect(missedRows(oneMissed).map((r) => r.workload)).toEqual(['too slow']);
  });

  it('exits 1 with --strict when a row prints NO, 0 without it', () => {
    expect(benchExitCode(oneMissed, true)).toBe(1);
    expect(benchExitCode(oneMissed, false)).toBe(0);
  });

  it('exits 0 with --strict when every judged row is met', () => {
    expect(benchExitCode(allMet, true)).toBe(0);
    expect(missedRows(allMet)).toEqual([]);
  });

  it('exits 1 with --strict when a backend asked for could not run, 0 without it', () => {
    expect(benchExitCode(allMet, true, ['postgres'])).toBe(1);
    expect(benchExitCode(allMet, false, ['postgres'])).toBe(0);
  });
});
