import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus, totalmem } from 'node:os';
import pino from 'pino';
import { createAppContext } from '../src/app/bootstrap.js';
import { benchExitCode, formatTable, missedRows, Progress, type BenchDialect, type BenchEnv, type BenchOptions, type BenchRow } from './bench-kit.js';
import { BENCH_SERVER_SECRET, freshStore, postgresReachable, settleStore } from './bench-database.js';
import { SyntheticFleet } from './fleet.js';
import { scaleSummary } from './lineage-bench.js';
import { BENCH_MODULES } from './modules.js';

const USAGE = `usage: npm run bench -- [options]

  --sessions N        fleet size for the main figures (default 100000)
  --scale LIST        fleet sizes the read-cost rows are measured at on the way
                      (default 10000,<sessions>; sizes above --sessions are ignored)
  --with-1m           also grow to 1,000,000 sessions for the read-cost rows (slow:
                      about 10 GB of transcripts per backend; opt-in)
  --dialects LIST     sqlite,postgres (default both; PostgreSQL needs a server, see
                      WARRANT_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test)
  --iterations N      timed reads per figure (default 2000)
  --only LIST         only these modules (${BENCH_MODULES.map((m) => m.name).join(', ')})
  --seed N            fleet seed (default 20261129)
  --quick             every module at a token size (audit, records, messages, hooks and
                      witness workloads shrunk, REST load 1 s per figure): for CI, to keep
                      the code paths running; its figures are not the targets' measure
  --strict            exit 1 when any row misses its target (prints NO) or a backend
                      asked for cannot run; without it the bench reports and exits 0
                      (a crash exits non-zero either way)
`;

type RunOptions = BenchOptions & { with1m: boolean; strict: boolean };

function parseArgs(argv: string[]): RunOptions {
  const opts: RunOptions = {
    sessions: 100_000,
    scaleSizes: [],
    dialects: ['sqlite', 'postgres'],
    iterations: 2000,
    only: null,
    seed: 20261129,
    with1m: false,
    strict: false,
    quick: false,
  };
  let scale: number[] | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n\n${USAGE}`);
      return v;
    };
    const positive = (v: string): number => {
      const n = Number(v.replace(/_/g, ''));
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${a}: ${JSON.stringify(v)} is not a positive integer`);
      return n;
    };
    switch (a) {
      case '--sessions':
        opts.sessions = positive(value());
        break;
      case '--scale':
        scale = value().split(',').map(positive);
        break;
      case '--with-1m':
        opts.with1m = true;
        break;
      case '--quick':
        opts.quick = true;
        break;
      case '--strict':
        opts.strict = true;
        break;
      case '--dialects':
        opts.dialects = value()
          .split(',')
          .map((d) => {
            if (d !== 'sqlite' && d !== 'postgres') throw new Error(`--dialects: ${JSON.stringify(d)} is not sqlite or postgres`);
            return d;
          });
        break;
      case '--iterations':
        opts.iterations = positive(value());
        break;
      case '--only':
        opts.only = value().split(',');
        break;
      case '--seed':
        opts.seed = positive(value());
        break;
      case '-h':
      case '--help':
        process.stdout.write(USAGE);
        process.exit(0);
      // falls through (exit never returns)
      default:
        throw new Error(`unknown option ${a}\n\n${USAGE}`);
    }
  }
  const sizes = new Set(scale ?? [10_000, opts.sessions]);
  sizes.add(opts.sessions);
  if (opts.with1m) sizes.add(1_000_000);
  opts.scaleSizes = [...sizes].filter((s) => s <= Math.max(opts.sessions, opts.with1m ? 1_000_000 : 0)).sort((a, b) => a - b);
  return opts;
}

async function runDialect(dialect: BenchDialect, options: BenchOptions, progress: Progress): Promise<{ rows: BenchRow[]; fleet: Record<string, unknown> }> {
  const { store, location, drop } = await freshStore(dialect);
  const rows: BenchRow[] = [];
  try {
    const ctx = await createAppContext(store, { logger: pino({ level: 'silent' }), serverSecret: BENCH_SERVER_SECRET });
    await ctx.live.start();
    ctx.hierarchies.start();
    const fleet = new SyntheticFleet(store, dialect, options.seed);
    const env: BenchEnv = { dialect, store, ctx, fleet, options, progress, location };
    const modules = BENCH_MODULES.filter((m) => !options.only || options.only.includes(m.name));
    const t0 = Date.now();
    let seedMs = 0;
    for (const size of options.scaleSizes) {
      const s0 = Date.now();
      await fleet.growTo(size, progress);
      seedMs += Date.now() - s0;
      progress.note(`${dialect}: fleet at ${fleet.size.toLocaleString('en-US')} sessions`);
      for (const m of modules) {
        if (!m.atSize) continue;
        await settleStore(store, dialect);
        rows.push(...(await m.atSize(env, fleet.size)));
      }
      if (size !== options.sessions) continue;
      for (const m of modules) {
        await settleStore(store, dialect);
        rows.push(...(await m.run(env)));
      }
    }
    await ctx.hierarchies.stop();
    await ctx.live.stop();
    return { rows, fleet: { ...fleet.stats, size: fleet.size, seed_ms: seedMs, total_ms: Date.now() - t0 } };
  } finally {
    await drop();
  }
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const progress = new Progress();
  const all: BenchRow[] = [];
  const fleets: Record<string, unknown> = {};
  const skipped: BenchDialect[] = [];
  for (const dialect of options.dialects) {
    if (dialect === 'postgres' && !(await postgresReachable())) {
      process.stderr.write('PostgreSQL is not reachable: its rows are missing from this run (not passed).\n');
      skipped.push(dialect);
      continue;
    }
    const { rows, fleet } = await runDialect(dialect, options, progress);
    all.push(...rows);
    fleets[dialect] = fleet;
  }
  const table = [...all, ...scaleSummary(all)];
  const ordered = options.dialects.flatMap((d) => table.filter((r) => r.dialect === d));
  process.stdout.write(
    `Warrant bench — ${options.sessions.toLocaleString('en-US')} sessions, seed ${options.seed}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB\n\n`,
  );
  process.stdout.write(formatTable(ordered) + '\n');
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify({ at: new Date().toISOString(), node: process.version, cores: cpus().length, options, fleets, rows: ordered }, null, 2) + '\n',
  );
  process.stdout.write(`\nJSON: ${file}\n`);
  const missed = missedRows(ordered);
  process.stdout.write(`\n${missed.length} of ${ordered.filter((r) => typeof r.met === 'boolean').length} judged rows missed their target\n`);
  const code = benchExitCode(ordered, options.strict, skipped);
  if (code !== 0) process.stderr.write(`--strict: ${missed.length} rows missed${skipped.length ? `; not run: ${skipped.join(', ')}` : ''}\n`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${(error as Error).message ?? String(error)}\n`);
    process.exit(1);
  },
);
