import type { AppContext } from '../src/app/context.js';
import { ProgressBar } from '../src/cli/progress.js';
import type { StoreDialect } from '../src/store/dialect/dialect.js';
import type { SyntheticFleet } from './fleet.js';

export type BenchDialect = 'sqlite' | 'postgres';

/** What a bench module gets: a seeded store of one dialect and its app context. */
export interface BenchEnv {
  dialect: BenchDialect;
  store: StoreDialect;
  ctx: AppContext;
  fleet: SyntheticFleet;
  options: BenchOptions;
  progress: Progress;
  /** where the store lives, for modules that start a real server on it */
  location: import('./bench-database.js').StoreLocation;
}

export interface BenchOptions {
  /** fleet size for the main figures (docs/design/quality.md: 100,000 by default) */
  sessions: number;
  /** sizes the fleet grows through on the way, for "read cost at …" rows */
  scaleSizes: number[];
  dialects: BenchDialect[];
  /** iterations of each timed read */
  iterations: number;
  /** only these modules (by name) */
  only: string[] | null;
  seed: number;
  /**
   * every module at a token size (fixed-size workloads shrunk, REST load 1 s per figure): keeps
   * the code paths running in CI, where the figures mean nothing
   */
  quick: boolean;
}

/**
 * One row of the printed table. `ratio` is measured side by side in the same run (docs/design/quality.md:
 * absolute times are noisy on shared machines; quote medians and the ratios).
 */
export interface BenchRow {
  module: string;
  dialect: BenchDialect;
  workload: string;
  value: string;
  target?: string;
  /** true / false when a target applies, null when it is informational */
  met?: boolean | null;
  data?: Record<string, unknown>;
}

/**
 * A bench module: `atSize` runs at each fleet size the run grows through (for rows that
 * show how cost grows), `run` once at the full size. Modules are listed in bench/modules.ts.
 */
export interface BenchModule {
  name: string;
  atSize?(env: BenchEnv, size: number): Promise<BenchRow[]>;
  run(env: BenchEnv): Promise<BenchRow[]>;
}

export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const i = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[i]!;
}

export type Timing = {
  p50: number;
  p99: number;
  mean: number;
  n: number;
};

/** Times `fn` `n` times after `warmup` untimed calls; milliseconds. `untimed` runs before each call, outside the timing. */
export async function timeIt(
  n: number,
  fn: (i: number) => Promise<unknown>,
  warmup = Math.min(50, Math.ceil(n / 10)),
  untimed?: (i: number) => Promise<unknown>,
): Promise<Timing> {
  for (let i = 0; i < warmup; i++) {
    await untimed?.(i);
    await fn(i);
  }
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    await untimed?.(i);
    const t0 = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), mean: samples.reduce((a, b) => a + b, 0) / samples.length, n };
}

export const ms = (v: number): string => (v < 10 ? `${v.toFixed(2)} ms` : `${v.toFixed(1)} ms`);
export const ratio = (v: number): string => `${v.toFixed(1)}×`;
export const count = (v: number): string => v.toLocaleString('en-US');

/**
 * A progress line on a TTY, silent in pipes (docs/design/surfaces.md): the CLI's own bar, one
 * per phase label, so a phase whose total is not known (0) shows a counter, never a broken bar.
 */
export class Progress {
  private readonly tty = !!process.stderr.isTTY;
  private phase: { label: string; bar: ProgressBar } | null = null;
  update(label: string, done: number, total: number): void {
    if (!this.tty) return;
    if (this.phase?.label !== label) this.phase = { label, bar: new ProgressBar(label.padEnd(34)) };
    this.phase.bar.update(done, total);
  }
  note(text: string): void {
    if (!this.tty) return;
    this.phase = null;
    process.stderr.write(`\r${text}\x1b[K\n`);
  }
  done(): void {
    this.phase = null;
    if (this.tty) process.stderr.write('\r\x1b[K');
  }
}

/** The rows whose target this run missed (printed `NO`). */
export function missedRows(rows: readonly BenchRow[]): BenchRow[] {
  return rows.filter((r) => r.met === false);
}

/**
 * The bench's exit code: with `--strict` a missed target, or a backend asked for that could not
 * run, fails the run (1); without it the run only reports and exits 0 whatever it measured (a
 * crash still exits non-zero, in run.ts).
 */
export function benchExitCode(rows: readonly BenchRow[], strict: boolean, skippedDialects: readonly BenchDialect[] = []): 0 | 1 {
  return strict && (missedRows(rows).length > 0 || skippedDialects.length > 0) ? 1 : 0;
}

/** The table printed on stdout. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['module', 'backend', 'workload', 'measured', 'target', 'met'];
  const cells = rows.map((r) => [r.module, r.dialect, r.workload, r.value, r.target ?? '', r.met === undefined || r.met === null ? '' : r.met ? 'yes' : 'NO']);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => x.padEnd(widths[i]!))
      .join(' | ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)].join('\n');
}
