/**
 * The audit rows of the benchmark (docs/design/quality.md: chaining adds ≤ 20 % to a write's latency;
 * `verify` reads ≥ 200,000 entries/s), on an opened store.
 *
 * `runAuditBench(ctx, {dialect})` returns rows `{workload, dialect, figures, target, pass}`
 * for bench/run.ts; `npx tsx bench/audit-bench.ts` runs it on a throwaway SQLite file and a
 * throwaway PostgreSQL database (WARRANT_BENCH_DATABASE_URL, default the local test server)
 * and prints the rows. Ratios are measured side by side in one run: absolute times on a
 * shared 2-core machine are noise, the ratio against the same write without the append is not.
 *
 * (a) chaining cost: the same write (PATCH one field: one event, one audit entry) is timed
 *     with and without the audit append, in interleaved blocks. "Without" uses the
 *     BENCH-ONLY context switch `benchOnly.skipAuditAppend` — the store it runs on is thrown
 *     away afterwards, because writes made with it have no log entries.
 * (b) verify throughput: the log is filled to ≥ 200,000 entries (realistic session-event
 *     entries, chained for real), then `verifyStoredChain` reads and rechecks all of it.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJson, nodeChainHasher } from '../src/app/audit.js';
import { verifyStoredChain } from '../src/app/audit-verify.js';
import { systemCaller } from '../src/app/caller.js';
import type { AppContext } from '../src/app/context.js';
import { authenticate } from '../src/app/credentials.js';
import { issueFleetKey } from '../src/app/roster.js';
import { createSession } from '../src/app/sessions/create-session.js';
import { patchSession } from '../src/app/sessions/patch-session.js';
import { AUDIT_SCHEMA_VERSION, GENESIS_PREV_HASH } from '../src/core/audit-chain.js';
import { ProgressBar } from '../src/cli/progress.js';
import { dialectsFromArgs, flag, formatRows, onFreshStore, printRows, runIfEntryPoint, type FigureRow as BenchRow } from './standalone.js';
export { formatRows };
import { auditHead, auditPage, insertAuditRows, type AuditRow } from '../src/store/audit-repo.js';

export type { BenchRow };

export interface AuditBenchOptions {
  dialect: string;
  /** timed writes of each kind (with and without the append) */
  writes?: number;
  /** the log is filled to at least this many entries before verify is timed */
  verifyEntries?: number;
  progress?: (label: string, done: number, total: number) => void;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!;
};
const round = (x: number, digits = 3) => Number(x.toFixed(digits));

/** (a): the added latency of chaining on one attributed write. */
async function chainingCost(ctx: AppContext, options: AuditBenchOptions): Promise<BenchRow> {
  const writes = options.writes ?? 2_000;
  const { token } = await issueFleetKey(ctx, systemCaller('cli'), 'audit bench');
  const caller = await authenticate(ctx, token, 'rest', 'rest');
  const session = (await createSession(ctx, caller, { title: 'audit bench' })).session;
  let starred = false;
  const write = async (): Promise<number> => {
    starred = !starred;
    const t0 = performance.now();
    await patchSession(ctx, caller, String(session.id), { starred });
    return performance.now() - t0;
  };
  const withAppend: number[] = [];
  const withoutAppend: number[] = [];
  for (let i = 0; i < 200; i++) await write(); // warm-up: prepared statements, caches, JIT
  const block = 50;
  try {
    for (let done = 0; done < writes; done += block) {
      // alternate which goes first, so drift in the machine's load hits both alike
      const order = (done / block) % 2 === 0 ? [false, true] : [true, false];
      for (const skip of order) {
        ctx.benchOnly = { skipAuditAppend: skip };
        for (let i = 0; i < block; i++) (skip ? withoutAppend : withAppend).push(await write());
      }
      options.progress?.('chaining cost', done + block, writes);
    }
  } finally {
    ctx.benchOnly = undefined;
  }
  const withMs = median(withAppend);
  const withoutMs = median(withoutAppend);
  const added = ((withMs - withoutMs) / withoutMs) * 100;
  return {
    workload: 'audit chain: added latency of chaining on a write (PATCH, one event)',
    dialect: options.dialect,
    figures: {
      writes_each: withAppend.length,
      median_with_ms: round(withMs),
      median_without_ms: round(withoutMs),
      p99_with_ms: round(percentile(withAppend, 99)),
      p99_without_ms: round(percentile(withoutAppend, 99)),
      added_latency_pct: round(added, 1),
    },
    target: '≤ 20 % added latency',
    pass: added <= 20,
  };
}

/** Appends realistic, really chained entries straight into the log until it holds `target`. */
async function fillLog(ctx: AppContext, target: number, progress?: AuditBenchOptions['progress']): Promise<number> {
  const db = ctx.store.kysely;
  const head = await auditHead(db);
  let seq = head?.seq ?? 0;
  let prev = head?.hash ?? GENESIS_PREV_HASH;
  const at = ctx.clock.now().toISOString();
  while (seq < target) {
    const rows: AuditRow[] = [];
    for (let i = 0; i < 1_000 && seq < target; i++) {
      seq++;
      const entry = canonicalJson({
        kind: 'session_event',
        at,
        schema_version: AUDIT_SCHEMA_VERSION,
        seq,
        session_id: 1 + (seq % 50_000),
        event_seq: 1 + (seq % 17),
        type: 'title_changed',
        details_digest: randomBytes(32).toString('hex'),
        actor_id: 3,
        actor_basis: 'authenticated',
        caused_by_actor_id: 3,
        cause_basis: 'authenticated',
        credential_id: 7,
      });
      const hash = nodeChainHasher(prev, entry);
      rows.push({ seq, entry, prevHash: prev, hash });
      prev = hash;
    }
    await db.transaction().execute((tx) => insertAuditRows(tx, rows));
    progress?.('filling the log', seq, target);
  }
  return seq;
}

/** Reading the same rows without checking them: the floor any verifier stands on, same run. */
async function readOnly(ctx: AppContext): Promise<number> {
  let after = 0;
  let n = 0;
  for (;;) {
    const page = await auditPage(ctx.store.kysely, after, 10_000);
    if (page.length === 0) return n;
    n += page.length;
    after = page[page.length - 1]!.seq;
  }
}

/** (b): verify throughput over the whole log (median of three runs, each beside a plain read). */
async function verifyThroughput(ctx: AppContext, options: AuditBenchOptions): Promise<BenchRow> {
  const entries = await fillLog(ctx, options.verifyEntries ?? 200_000, options.progress);
  const verifyRates: number[] = [];
  const readRates: number[] = [];
  for (let run = 0; run < 3; run++) {
    let t0 = performance.now();
    const read = await readOnly(ctx);
    readRates.push(read / ((performance.now() - t0) / 1000));
    t0 = performance.now();
    const report = await verifyStoredChain(ctx.store.kysely, { onProgress: (d, t) => options.progress?.(`verifying (run ${run + 1} of 3)`, d, t) });
    if (!report.ok) throw new Error(`the benchmark log does not verify: ${JSON.stringify(report.broken)}`);
    verifyRates.push(report.entries / ((performance.now() - t0) / 1000));
  }
  const rate = median(verifyRates);
  const readRate = median(readRates);
  return {
    workload: 'audit chain: verify throughput',
    dialect: options.dialect,
    figures: {
      entries,
      entries_per_s: Math.round(rate),
      plain_read_entries_per_s: Math.round(readRate),
      verify_vs_plain_read: round(rate / readRate, 2),
    },
    target: '≥ 200,000 entries/s',
    pass: rate >= 200_000,
  };
}

/** The audit rows of docs/design/quality.md on one opened store (which it writes to: use a throwaway one). */
export async function runAuditBench(ctx: AppContext, options: AuditBenchOptions): Promise<BenchRow[]> {
  return [await chainingCost(ctx, options), await verifyThroughput(ctx, options)];
}

// --- standalone ---------------------------------------------------------------------------

async function main(): Promise<void> {
  const writes = flag('--writes', 2_000);
  const verifyEntries = flag('--entries', 200_000);
  const rows: BenchRow[] = [];
  for (const dialect of dialectsFromArgs()) {
    // one bar per phase, on a TTY only (docs/design/surfaces.md)
    let bar: ProgressBar | null = null;
    let phase = '';
    let last = { done: 0, total: 0 };
    const progress = (label: string, done: number, total: number) => {
      if (label !== phase) {
        bar?.finish(last.done, last.total);
        bar = new ProgressBar(`${dialect}: ${label}`);
        phase = label;
      }
      last = { done, total };
      bar!.update(done, total);
    };
    rows.push(...(await onFreshStore(dialect, (ctx) => runAuditBench(ctx, { dialect, writes, verifyEntries, progress }))));
    (bar as ProgressBar | null)?.finish(last.done, last.total);
  }
  printRows(rows);
}

runIfEntryPoint(import.meta.url, 'audit', main);
