import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { createAppContext } from '../src/app/bootstrap.js';
import type { AppContext } from '../src/app/context.js';
import { BENCH_SERVER_SECRET, freshStore } from './bench-database.js';
import type { BenchDialect } from './bench-kit.js';

/**
 * What the audit, messages and REST benches share when run on their own
 * (`npx tsx bench/<name>-bench.ts`): their row shape and its table, the flags, a fresh store
 * per backend. `npm run bench` runs the same functions through bench/modules.ts.
 */

/** One measured workload with its figures and the docs/design/quality.md target. */
export interface FigureRow {
  workload: string;
  dialect: string;
  figures: Record<string, number | string>;
  target: string;
  /** whether the target was met in this run; null when no target applies (a baseline) */
  pass: boolean | null;
}

export function formatRows(rows: readonly FigureRow[]): string {
  const met = (pass: boolean | null) => (pass === null ? '' : pass ? 'yes' : 'NO');
  const lines = rows.map(
    (r) =>
      `| ${r.workload} | ${r.dialect} | ${Object.entries(r.figures)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')} | ${r.target} | ${met(r.pass)} |`,
  );
  return ['| workload | backend | figures | target | met |', '| --- | --- | --- | --- | --- |', ...lines].join('\n');
}

/** The table, and the machine's load beside it: absolute figures depend on what else runs. */
export function printRows(rows: readonly FigureRow[]): void {
  process.stdout.write(formatRows(rows) + '\n');
  process.stdout.write(
    `\n${cpus().length} cores; load average at the end of the run: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}\n`,
  );
}

/** `--name N`: a positive whole number, or the fallback. */
export function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`${name} needs a positive whole number`);
  return v;
}

/** `--dialect sqlite|postgres`, or both. */
export function dialectsFromArgs(): BenchDialect[] {
  const i = process.argv.indexOf('--dialect');
  if (i < 0) return ['sqlite', 'postgres'];
  const d = process.argv[i + 1];
  if (d !== 'sqlite' && d !== 'postgres') throw new Error('--dialect is sqlite or postgres');
  return [d];
}

/** Runs `bench` on a fresh, migrated store of the backend, removed afterwards. */
export async function onFreshStore<T>(dialect: BenchDialect, bench: (ctx: AppContext) => Promise<T>): Promise<T> {
  const fresh = await freshStore(dialect);
  try {
    return await bench(await createAppContext(fresh.store, { logger: pino({ level: 'silent' }), serverSecret: BENCH_SERVER_SECRET }));
  } finally {
    await fresh.drop();
  }
}

/** Runs `main` when the module is the process's entry point. */
export function runIfEntryPoint(moduleUrl: string, name: string, main: () => Promise<void>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  main().catch((error: unknown) => {
    process.stderr.write(`${name} bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
}
