import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hookCommand, warrantPaths } from '../src/integrations/agent-config.js';
import { ms, percentile } from './bench-kit.js';
import { flag, printRows, runIfEntryPoint, type FigureRow } from './standalone.js';

/**
 * What one agent hook call costs: the hook command exactly as `warrant integrate` writes it,
 * run through /bin/sh as the agents run it, in this process's environment (so a machine's
 * NODE_EXTRA_CA_CERTS counts where it applies), with a hook JSON on stdin, talking to a runner
 * socket that answers at once (docs/integrations.md: a hook call ≤ 50 ms at p50). Beside it,
 * two baselines in the same environment: a bare `node -e ''` start (the floor any Node hook
 * pays) and a bare `warrant --version`. All three are started and timed by a small process of
 * their own (bench/spawn-timer.mjs), as an agent starts its hook, not by this one: forking this
 * process's heap is not a cost of the hook. The socket server counts the requests, so a hook
 * that skipped the round trip cannot pass for a fast one.
 */
const ROOT = resolve(import.meta.dirname, '..');
const HOOK = warrantPaths().hookMain;
const CLI = join(ROOT, 'dist/cli/main.js');
const SPAWN_TIMER = join(ROOT, 'bench/spawn-timer.mjs');
const TARGET_P50_MS = 50;

const PAYLOAD = JSON.stringify({
  session_id: '6f1c2a9e-0000-4000-8000-000000000001',
  transcript_path: '/tmp/warrant-bench/transcript.jsonl',
  cwd: '/tmp/warrant-bench',
  hook_event_name: 'UserPromptSubmit',
  prompt: 'Fix the flaky deploy test and tell me what was wrong.',
});

/** A runner socket that answers every request line with `{"ok":true}`. */
async function runnerSocket(): Promise<{ path: string; requests: () => number; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'warrant-bench-runner-'));
  chmodSync(dir, 0o700);
  const path = join(dir, 'runner.sock');
  let requests = 0;
  const server: Server = createServer((socket) => {
    let buffer = '';
    socket.on('data', (d: Buffer) => {
      buffer += d.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim() === '') continue;
        requests++;
        socket.write('{"ok":true}\n');
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((ok) => server.listen(path, ok));
  return {
    path,
    requests: () => requests,
    close: async () => {
      await new Promise<void>((ok) => server.close(() => ok()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface TimedRun {
  name: string;
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  input: string | null;
}

/** Each run's start-to-exit times, sorted, measured by bench/spawn-timer.mjs (a small process of its own). */
function timeStarts(runs: TimedRun[], n: number, warmup: number): Promise<Record<string, number[]>> {
  return new Promise((ok, fail) => {
    const timer = spawn(process.execPath, [SPAWN_TIMER], { stdio: ['pipe', 'pipe', 'inherit'] });
    let stdout = '';
    timer.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    timer.on('error', fail);
    timer.on('close', (code) => {
      if (code !== 0) return fail(new Error(`spawn-timer exited ${code}`));
      const out = JSON.parse(stdout) as Record<string, { samples: number[]; failures: number[] }>;
      const failed = Object.entries(out).filter(([, r]) => r.failures.length > 0);
      if (failed.length > 0) return fail(new Error(failed.map(([name, r]) => `${name} exited ${r.failures.join(', ')}`).join('; ')));
      ok(Object.fromEntries(Object.entries(out).map(([name, r]) => [name, [...r.samples].sort((a, b) => a - b)])));
    });
    timer.stdin.end(JSON.stringify({ runs: runs.map((r) => ({ ...r, n, warmup })) }));
  });
}

export async function runHookBench(options: { samples?: number } = {}): Promise<FigureRow[]> {
  if (!existsSync(HOOK)) throw new Error(`${HOOK} is missing: run \`npm run build\` first`);
  const n = options.samples ?? 60;
  const warmup = 5;
  const socket = await runnerSocket();
  try {
    const base = { ...process.env };
    for (const k of Object.keys(base)) if (k.startsWith('WARRANT_')) delete base[k];
    const hookEnv = {
      ...base,
      WARRANT_URL: 'http://127.0.0.1:1',
      WARRANT_SESSION_ID: '1',
      WARRANT_SESSION_TOKEN: 'wrt_s_' + 'a'.repeat(43),
      WARRANT_RUNNER_SOCKET: socket.path,
    };
    const timed = await timeStarts(
      [
        { name: 'hook', file: '/bin/sh', args: ['-c', hookCommand('claude-code')], env: hookEnv, input: PAYLOAD },
        { name: 'node', file: process.execPath, args: ['-e', ''], env: base, input: null },
        { name: 'cli', file: process.execPath, args: [CLI, '--version'], env: base, input: null },
      ],
      n,
      warmup,
    );
    const { hook, node, cli } = timed as { hook: number[]; node: number[]; cli: number[] };
    if (socket.requests() !== n + warmup)
      throw new Error(`the hook made ${socket.requests()} runner requests in ${n + warmup} calls: it did not do the round trip it is timed for`);
    const p50 = percentile(hook, 50);
    const caNote = process.env.NODE_EXTRA_CA_CERTS ? ' (NODE_EXTRA_CA_CERTS is set here)' : '';
    return [
      {
        workload: 'hook call: the command warrant integrate writes, through /bin/sh, runner socket round trip',
        dialect: '-',
        figures: { p50: ms(p50), p99: ms(percentile(hook, 99)), samples: n },
        target: `p50 ≤ ${TARGET_P50_MS} ms`,
        pass: p50 <= TARGET_P50_MS,
      },
      {
        workload: `baseline: bare Node start (node -e '')${caNote}`,
        dialect: '-',
        figures: { p50: ms(percentile(node, 50)), p99: ms(percentile(node, 99)), samples: n },
        target: '',
        pass: null,
      },
      {
        workload: 'baseline: bare CLI start (node dist/cli/main.js --version)',
        dialect: '-',
        figures: { p50: ms(percentile(cli, 50)), p99: ms(percentile(cli, 99)), samples: n },
        target: '',
        pass: null,
      },
    ];
  } finally {
    await socket.close();
  }
}

runIfEntryPoint(import.meta.url, 'hook', async () => {
  printRows(await runHookBench({ samples: flag('--samples', 60) }));
});
