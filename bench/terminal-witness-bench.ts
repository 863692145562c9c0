import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn as spawnPty, type IPty } from 'node-pty';
import { runCli, startServer } from '../test/helpers/server-process.js';
import { percentile } from './bench-kit.js';
import { flag, printRows, runIfEntryPoint, type FigureRow } from './standalone.js';

/**
 * What the terminal witness adds to a keystroke (docs/human-messages.md, "the agent terminal"):
 * the time from a key written into the person's terminal to the agent echoing it back, per
 * byte and for the Enter that ends a turn (when the witness reconstructs and reports it),
 * under `warrant run` with the witness (a human token) against the same PTY relay without it
 * (a fleet key) as the baseline. Target: ≤ 1 ms added per keystroke at p99.
 */

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');
const TARGET_ADDED_P99_MS = 1;

/** An agent that echoes each key at once, and `#` for Enter. */
const ECHO_AGENT = `
process.stdin.setRawMode(true);
process.stdout.write('ready\\r\\n');
process.stdin.on('data', (d) => {
  const s = d.toString('latin1');
  if (s === '\\x04') process.exit(0);
  process.stdout.write(s.replaceAll('\\r', '#'));
});
`;

interface Sampled {
  perByte: number[];
  perTurn: number[];
}

async function measure(term: IPty, samples: number): Promise<Sampled> {
  let seen = '';
  const waiters: { mark: string; count: number; resolve: () => void }[] = [];
  term.onData((d) => {
    seen += d;
    for (const w of [...waiters]) {
      if (seen.split(w.mark).length - 1 >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  const echoOf = (mark: string) => new Promise<void>((r) => waiters.push({ mark, count: seen.split(mark).length, resolve: r }));
  const ready = echoOf('ready');
  await ready;
  const perByte: number[] = [];
  const perTurn: number[] = [];
  for (let i = 0; i < samples; i++) {
    for (const key of 'checkthe') {
      const echoed = echoOf(key);
      const t0 = performance.now();
      term.write(key);
      await echoed;
      perByte.push(performance.now() - t0);
    }
    const submitted = echoOf('#');
    const t0 = performance.now();
    term.write('\r');
    await submitted;
    perTurn.push(performance.now() - t0);
  }
  term.write('\x04');
  return { perByte: perByte.sort((a, b) => a - b), perTurn: perTurn.sort((a, b) => a - b) };
}

export async function runTerminalWitnessBench(options: { samples?: number } = {}): Promise<FigureRow[]> {
  const samples = options.samples ?? 100;
  const dir = mkdtempSync(join(tmpdir(), 'warrant-bench-witness-'));
  const agent = join(dir, 'echo-agent.mjs');
  writeFileSync(agent, ECHO_AGENT);
  const server = await startServer();
  try {
    const storeEnv = { WARRANT_DATA_DIR: server.dataDir };
    await runCli(['users', 'add', 'bench', '--name', 'Bench Typist'], { env: storeEnv });
    const human = JSON.parse((await runCli(['users', 'tokens', 'issue', 'bench', '--json'], { env: storeEnv })).stdout).token as string;
    const run = async (token: string, title: string): Promise<Sampled> => {
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, TERM: 'xterm-256color', WARRANT_URL: server.url, WARRANT_TOKEN: token };
      // --provider claude-code: the runner's PTY relay without a human token too (the baseline)
      const term = spawnPty(process.execPath, [CLI, 'run', '--title', title, '--provider', 'claude-code', '--', process.execPath, agent], {
        name: 'xterm-256color',
        cols: 100,
        rows: 30,
        env,
      });
      const exited = new Promise<void>((r) => term.onExit(() => r()));
      const sampled = await measure(term, samples);
      await exited;
      return sampled;
    };
    const plain = await run(server.fleetKey, 'bench plain relay');
    const witnessed = await run(human, 'bench witnessed relay');
    const row = (workload: string, base: number[], under: number[], target: boolean): FigureRow => {
      const p50 = percentile(under, 50);
      const p99 = percentile(under, 99);
      const baseP99 = percentile(base, 99);
      const added = p99 - baseP99;
      return {
        workload,
        dialect: '-',
        figures: {
          'baseline p50 ms': percentile(base, 50).toFixed(3),
          'baseline p99 ms': baseP99.toFixed(3),
          'witness p50 ms': p50.toFixed(3),
          'witness p99 ms': p99.toFixed(3),
          'added p99 ms': added.toFixed(3),
          'ratio p50': (p50 / percentile(base, 50)).toFixed(2),
          'ratio p99': (p99 / baseP99).toFixed(2),
        },
        target: target ? `≤ ${TARGET_ADDED_P99_MS} ms added at p99` : 'none (the turn report is sent off the keystroke path)',
        pass: target ? added <= TARGET_ADDED_P99_MS : null,
      };
    };
    return [
      row(`keystroke relay, per byte (${plain.perByte.length} keys)`, plain.perByte, witnessed.perByte, true),
      row(`keystroke relay, Enter ending a turn (${plain.perTurn.length} turns)`, plain.perTurn, witnessed.perTurn, false),
    ];
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runIfEntryPoint(import.meta.url, 'terminal-witness', async () => {
  printRows(await runTerminalWitnessBench({ samples: flag('--samples', 100) }));
});
