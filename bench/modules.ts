import type { BenchModule, BenchRow } from './bench-kit.js';
import { lineageBench } from './lineage-bench.js';
import { runAuditBench } from './audit-bench.js';
import { runRecordsBench } from './records-bench.js';
import { onFreshStore } from './standalone.js';
import { runMessagesBench } from './messages-bench.js';
import { restBench } from './rest-bench.js';
import { runHookBench } from './hook-bench.js';
import { runTerminalWitnessBench } from './terminal-witness-bench.js';
import type { FigureRow } from './standalone.js';

/** The standalone benches' rows, in the run's table format. */
function adapt(module: string, dialect: BenchRow['dialect'], rows: readonly FigureRow[]): BenchRow[] {
  return rows.map((r) => ({
    module,
    dialect,
    workload: r.workload,
    value: Object.entries(r.figures)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
    target: r.target,
    met: r.pass ?? null,
    data: r.figures,
  }));
}

const auditBench: BenchModule = {
  name: 'audit',
  run: async (env) =>
    adapt(
      'audit',
      env.dialect,
      await runAuditBench(env.ctx, {
        dialect: env.dialect,
        ...(env.options.quick ? { writes: 100, verifyEntries: 5_000 } : {}),
        progress: (label, done, total) => env.progress.update(label, done, total),
      }),
    ),
};

/** `audit verify --records` throughput, on a throwaway store of its own (its records are the bench's, all logged). */
const recordsBench: BenchModule = {
  name: 'records',
  run: async (env) => {
    const progress = (label: string, done: number, total: number) => env.progress.update(label, done, total);
    const records = env.options.quick ? { records: 5_000 } : {};
    return adapt('records', env.dialect, await onFreshStore(env.dialect, (ctx) => runRecordsBench(ctx, { dialect: env.dialect, ...records, progress })));
  },
};

const messagesBench: BenchModule = {
  name: 'messages',
  run: async (env) =>
    adapt(
      'messages',
      env.dialect,
      await runMessagesBench(env.ctx, {
        dialect: env.dialect,
        ...(env.options.quick ? { messages: 200 } : {}),
        progress: (label, done, total) => env.progress.update(label, done, total),
      }),
    ),
};

/** REST throughput and server memory: the built server on the bench fleet's store, load from a second process. */
const restModule: BenchModule = {
  name: 'rest',
  run: async (env) => adapt('rest', env.dialect, await restBench(env.dialect, env.options.quick ? 1 : 10, env.location)),
};

/** Hook latency does not depend on the backend: measured once, on the first backend run. */
let hookRows: Promise<BenchRow[]> | null = null;
const hookModule: BenchModule = {
  name: 'hooks',
  run: async (env) => {
    if (hookRows) return [];
    hookRows = runHookBench(env.options.quick ? { samples: 5 } : {}).then((rows) => adapt('hooks', env.dialect, rows));
    return hookRows;
  },
};

/** The terminal witness's cost per keystroke does not depend on the backend either: measured once. */
let witnessRows: Promise<BenchRow[]> | null = null;
const terminalWitnessModule: BenchModule = {
  name: 'terminal-witness',
  run: async (env) => {
    if (witnessRows) return [];
    witnessRows = runTerminalWitnessBench(env.options.quick ? { samples: 10 } : {}).then((rows) => adapt('terminal-witness', env.dialect, rows));
    return witnessRows;
  },
};

/**
 * Every bench module, run in this order on each backend. A capability adds its figures by
 * writing a module (`bench/<name>-bench.ts` exporting a BenchModule) and listing it here.
 */
export const BENCH_MODULES: BenchModule[] = [lineageBench, auditBench, recordsBench, messagesBench, restModule, hookModule, terminalWitnessModule];
