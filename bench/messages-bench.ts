/**
 * The agent-message row of the benchmark (docs/design/quality.md: agent message send + deliver ≥ 2,000/s),
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
import { systemCaller, type Caller } from '../src/app/caller.js';
import type { AppContext } from '../src/app/context.js';
import { authenticate } from '../src/app/credentials.js';
import { deliverNew } from '../src/app/inbox/deliveries.js';
import { ackInbox, leaseInbox } from '../src/app/inbox/runtime-inbox.js';
import { sendMessage } from '../src/app/messages/send-message.js';
import { issueFleetKey } from '../src/app/roster.js';
import { createSession } from '../src/app/sessions/create-session.js';
import { ProgressBar } from '../src/cli/progress.js';
import { dialectsFromArgs, flag, formatRows, onFreshStore, printRows, runIfEntryPoint, type FigureRow as BenchRow } from './standalone.js';
export { formatRows };

export type { BenchRow };

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
const count = (n: number) => n.toLocaleString('en-US');

/** 2,000/s on the embedded store; PostgreSQL pays a network round trip per statement, so 1,000/s. */
const targetPerSecond = (dialect: string): number => (dialect === 'postgres' ? 1_000 : 2_000);

async function liveSession(ctx: AppContext, fleet: Caller, title: string): Promise<{ id: number; caller: Caller }> {
  const r = await createSession(ctx, fleet, { title, attach: true });
  return { id: r.session.id, caller: await authenticate(ctx, r.sessionToken, 'rest', 'rest') };
}

/** Leases everything waiting and acknowledges it, as the target's runtime; returns how many. */
async function drain(ctx: AppContext, target: { id: number; caller: Caller }, batch: number): Promise<number> {
  let n = 0;
  for (;;) {
    const leased = await leaseInbox(ctx, target.caller, String(target.id), { maxItems: Math.min(batch, 100) });
    if (leased.items.length === 0) return n;
    const report = await ackInbox(
      ctx,
      target.caller,
      String(target.id),
      leased.items.map((i) => i.id),
    );
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
  for (let i = 0; i < concurrency; i++)
    pairs.push({ sender: await liveSession(ctx, fleet, `bench sender ${i}`), target: await liveSession(ctx, fleet, `bench target ${i}`) });
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
      target: `≥ ${count(targetPerSecond(options.dialect))}/s`,
      pass: rate >= targetPerSecond(options.dialect),
    },
  ];
}

// --- standalone ---------------------------------------------------------------------------

async function main(): Promise<void> {
  const messages = flag('--messages', 4_000);
  const senders = flag('--senders', 4);
  const rows: BenchRow[] = [];
  for (const dialect of dialectsFromArgs()) {
    const bar = new ProgressBar(`${dialect}: send + deliver`);
    let last = { done: 0, total: 0 };
    const progress = (_label: string, done: number, total: number) => {
      last = { done, total };
      bar.update(done, total);
    };
    rows.push(...(await onFreshStore(dialect, (ctx) => runMessagesBench(ctx, { dialect, messages, senders, progress }))));
    bar.finish(last.done, last.total);
  }
  printRows(rows);
}

runIfEntryPoint(import.meta.url, 'messages', main);
