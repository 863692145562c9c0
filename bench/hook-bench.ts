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
 * pays) and a bare `warrant --version`. The socket server counts the requests, so a hook that
 * skipped the round trip cannot pass for a fast one.
 */
const ROOT = resolve(import.meta.dirname, '..');
const HOOK = warrantPaths().hookMain;
const CLI = join(ROOT, 'dist/cli/main.js');
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

function run(file: string, args: string[], env: NodeJS.ProcessEnv, input: string | null): Promise<{ code: number | null; stdout: string }> {
  return new Promise((ok, fail) => {
    const child = spawn(file, args, { env, stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => ok({ code, stdout }));
    if (input !== null) child.stdin!.end(input);
  });
}

async function sample(n: number, warmup: number, once: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await once();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return samples.sort((a, b) => a - b);
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
    const command = hookCommand('claude-code');
    const hook = await sample(n, warmup, async () => {
      const r = await run('/bin/sh', ['-c', command], hookEnv, PAYLOAD);
      if (r.code !== 0) throw new Error(`the hook exited ${r.code}`);
    });
    if (socket.requests() !== n + warmup)
      throw new Error(`the hook made ${socket.requests()} runner requests in ${n + warmup} calls: it did not do the round trip it is timed for`);
    const node = await sample(n, warmup, async () => {
      const r = await run(process.execPath, ['-e', ''], base, null);
      if (r.code !== 0) throw new Error(`node -e '' exited ${r.code}`);
    });
    const cli = await sample(n, warmup, async () => {
      const r = await run(process.execPath, [CLI, '--version'], base, null);
      if (r.code !== 0) throw new Error(`warrant --version exited ${r.code}`);
    });
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
