/**
 * The agent-message row of the benchmark (spec 07 "agent message send + deliver ≥ 2,000/s"),
 * on an opened store.
 *
 * `runMessagesBench(ctx, {dialect})` returns rows `{workload, dialect, figures, target, pass}`
 * for bench/run.ts; `npx tsx bench/messages-bench.ts [--messages N] [--senders N] [--dialect sqlite|postgres]`
 * runs it on a throwaway SQLite file and a throwaway PostgreSQL database
 * (WARRANT_BENCH_DATABASE_URL, default the local test server) and prints the rows.
 *
 * Several senders work at once, each sending to its own target (a fleet, not one agent; on
 * SQLite the single writer serializes them anyway). One message is the whole path: the sender's session token sends it (one transaction: the
 * envelope, the inbox item, two attributed events and their audit entries), the target's
 * runtime leases it and acknowledges it (which marks it delivered and writes its history row
 * and audit entry). Leases and acknowledgements go in batches of 50, as a runtime draining its
 * inbox does. The baseline, in the same run and interleaved with it in blocks so drift in the
 * machine's load hits both alike, is the plain inbox path: a fleet follow-up (no acting session,
 * so no uncle edge) leased and acknowledged the same way. The ratio is what the agent-message
 * machinery costs on top of delivering anything at all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { createAppContext } from '../src/app/bootstrap.js';
import { systemCaller, type Caller } from '../src/app/caller.js';
import type { AppContext } from '../src/app/context.js';
import { authenticate } from '../src/app/credentials.js';
import { deliverNew } from '../src/app/inbox/deliveries.js';
import { ackInbox, leaseInbox } from '../src/app/inbox/runtime-inbox.js';
import { sendMessage } from '../src/app/messages/send-message.js';
import { issueFleetKey } from '../src/app/roster.js';
import { createSession } from '../src/app/sessions/create-session.js';
import { ProgressBar } from '../src/cli/progress.js';
import { openStore } from '../src/store/connect.js';

export interface BenchRow {
  workload: string;
  dialect: string;
  figures: Record<string, number | string>;
  target: string;
  pass: boolean;
}

export interface MessagesBenchOptions {
  dialect: string;
  /** messages of each kind (agent messages, baseline follow-ups) */
  messages?: number;
  /** how many are sent before the target drains its inbox (one lease and one ack per batch) */
  batch?: number;
  /** sender → target pairs working at once (a fleet, not one agent) */
  senders?: number;
  progress?: (label: string, done: number, total: number) => void;
}

const round = (x: number, digits = 3) => Number(x.toFixed(digits));

async function liveSession(ctx: AppContext, fleet: Caller, title: string): Promise<{ id: number; caller: Caller }> {
  const r = await createSession(ctx, fleet, { title, attach: true });
  return { id: r.session.id, caller: await authenticate(ctx, r.sessionToken!, 'rest', 'rest') };
}

/** Leases everything waiting and acknowledges it, as the target's runtime; returns how many. */
async function drain(ctx: AppContext, target: { id: number; caller: Caller }, batch: number): Promise<number> {
  let n = 0;
  for (;;) {
    const leased = await leaseInbox(ctx, target.caller, String(target.id), { maxItems: Math.min(batch, 100) });
    if (leased.items.length === 0) return n;
    const report = await ackInbox(ctx, target.caller, String(target.id), leased.items.map((i) => i.id));
    if (report.delivered.length !== leased.items.length) throw new Error(`bench: ${leased.items.length - report.delivered.length} items were not delivered`);
    n += report.delivered.length;
  }
}

export async function runMessagesBench(ctx: AppContext, options: MessagesBenchOptions): Promise<BenchRow[]> {
  const total = options.messages ?? 4_000;
  const batch = options.batch ?? 50;
  const concurrency = options.senders ?? 4;
  const { token } = await issueFleetKey(ctx, systemCaller('cli'), 'messages bench');
  const fleet = await authenticate(ctx, token, 'rest', 'rest');
  // each sender talks to its own target, all at once, as a fleet does
  const pairs: { sender: { id: number; caller: Caller }; target: { id: number; caller: Caller } }[] = [];
  for (let i = 0; i < concurrency; i++) pairs.push({ sender: await liveSession(ctx, fleet, `bench sender ${i}`), target: await liveSession(ctx, fleet, `bench target ${i}`) });
  const payload = 'Build #812 failed in lint; please take a look at src/app/messages and report back.';

  let sequence = 0;
  const concurrently = async (one: (pair: (typeof pairs)[number]) => Promise<void>): Promise<number> => {
    const t0 = performance.now();
    await Promise.all(pairs.map(one));
    return performance.now() - t0;
  };
  const agentRound = () =>
    concurrently(async ({ sender, target }) => {
      for (let i = 0; i < batch; i++) await sendMessage(ctx, sender.caller, { to: target.id, payload, ref: `bench-${sequence++}` });
      if ((await drain(ctx, target, batch)) !== batch) throw new Error('bench: not every message was delivered');
    });
  const baselineRound = () =>
    concurrently(async ({ target }) => {
      for (let i = 0; i < batch; i++) await deliverNew(ctx, fleet, String(target.id), 'follow_up', { content: payload });
      if ((await drain(ctx, target, batch)) !== batch) throw new Error('bench: not every follow-up was delivered');
    });

  // warm-up: prepared statements, caches, JIT
  for (let i = 0; i < 2; i++) {
    await agentRound();
    await baselineRound();
  }
  let agentMs = 0;
  let baselineMs = 0;
  const perRound = batch * concurrency;
  const rounds = Math.max(1, Math.ceil(total / perRound));
  for (let r = 0; r < rounds; r++) {
    // alternate which goes first, so drift in the machine's load hits both alike
    if (r % 2 === 0) {
      agentMs += await agentRound();
      baselineMs += await baselineRound();
    } else {
      baselineMs += await baselineRound();
      agentMs += await agentRound();
    }
    options.progress?.('send + deliver', (r + 1) * perRound, rounds * perRound);
  }
  const messages = rounds * perRound;
  const rate = messages / (agentMs / 1000);
  const baseline = messages / (baselineMs / 1000);
  return [
    {
      workload: `agent message send + deliver (${concurrency} senders at once, each with its session token; targets lease + ack in batches of ${batch})`,
      dialect: options.dialect,
      figures: {
        messages,
        messages_per_s: Math.round(rate),
        baseline_follow_ups_per_s: Math.round(baseline),
        vs_baseline: round(rate / baseline, 2),
      },
      target: '≥ 2,000/s',
      pass: rate >= 2_000,
    },
  ];
}

// --- standalone ---------------------------------------------------------------------------

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`${name} needs a positive whole number`);
  return v;
}

async function benchOn(dialect: 'sqlite' | 'postgres', options: Omit<MessagesBenchOptions, 'dialect'>): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'warrant-messages-bench-'));
  let databaseUrl: string | null = null;
  let dropDatabase: (() => Promise<void>) | null = null;
  if (dialect === 'postgres') {
    const adminUrl = process.env.WARRANT_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const name = `warrant_messages_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  }
  const store = await openStore({ databaseUrl, sqliteFile: join(dir, 'warrant.db') });
  try {
    const ctx = await createAppContext(store, { logger: pino({ level: 'silent' }) });
    return await runMessagesBench(ctx, { dialect, ...options });
  } finally {
    await store.destroy();
    await dropDatabase?.();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatRows(rows: readonly BenchRow[]): string {
  const lines = rows.map((r) => `| ${r.workload} | ${r.dialect} | ${Object.entries(r.figures).map(([k, v]) => `${k} ${v}`).join(', ')} | ${r.target} | ${r.pass ? 'yes' : 'NO'} |`);
  return ['| workload | backend | figures | target | met |', '| --- | --- | --- | --- | --- |', ...lines].join('\n');
}

async function main(): Promise<void> {
  const messages = flag('--messages', 4_000);
  const senders = flag('--senders', 4);
  const rows: BenchRow[] = [];
  const only = process.argv.indexOf('--dialect');
  const dialects = only >= 0 ? [process.argv[only + 1] as 'sqlite' | 'postgres'] : (['sqlite', 'postgres'] as const);
  if (dialects.some((d) => d !== 'sqlite' && d !== 'postgres')) throw new Error('--dialect is sqlite or postgres');
  for (const dialect of dialects) {
    const bar = new ProgressBar(`${dialect}: send + deliver`);
    let last = { done: 0, total: 0 };
    rows.push(
      ...(await benchOn(dialect, {
        messages,
        senders,
        progress: (_label, done, total) => {
          last = { done, total };
          bar.update(done, total);
        },
      })),
    );
    bar.finish(last.done, last.total);
  }
  process.stdout.write(formatRows(rows) + '\n');
  process.stdout.write(`\n${cpus().length} cores; load average at the end of the run: ${loadavg().map((l) => l.toFixed(2)).join(', ')}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`messages bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
}
