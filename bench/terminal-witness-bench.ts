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
 * (a fleet key) as the baseline, both live at once and typing in turns. Keys follow their echo
 * at once; the next turn starts 20 ms after an Enter. Target: ≤ 1 ms added per keystroke at p99.
 */

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');
const TARGET_ADDED_P99_MS = 1;
/** the pause after Enter before the next key */
const AFTER_ENTER_MS = 20;

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

/** A terminal under `warrant run` whose echoes are counted as they arrive (no rescanning of what came before). */
class EchoTerminal {
  private readonly counts = new Map<string, number>();
  private readonly waiters: { mark: string; count: number; resolve: () => void }[] = [];
  private head: string | null = '';
  readonly exited: Promise<void>;
  /** the agent said `ready` (whatever the runner printed before it) */
  readonly ready: Promise<void>;

  constructor(private readonly term: IPty) {
    this.exited = new Promise<void>((r) => term.onExit(() => r()));
    let isReady = () => {};
    this.ready = new Promise<void>((r) => (isReady = r));
    term.onData((d) => {
      if (this.head !== null) {
        this.head += d; // 'ready' may arrive split
        if (this.head.includes('ready')) {
          this.head = null;
          isReady();
        }
      }
      for (const ch of d) this.counts.set(ch, (this.counts.get(ch) ?? 0) + 1);
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        const w = this.waiters[i]!;
        if (this.seen(w.mark) >= w.count) {
          this.waiters.splice(i, 1);
          w.resolve();
        }
      }
    });
  }

  private seen(mark: string): number {
    return this.counts.get(mark) ?? 0;
  }

  /** resolves when one more `mark` (one character) than now has been echoed */
  echoOf(mark: string): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push({ mark, count: this.seen(mark) + 1, resolve }));
  }

  /** one turn: the word key by key, each timed to its echo, then Enter timed to its `#` */
  async turn(into: Sampled): Promise<void> {
    for (const key of 'checkthe') {
      const echoed = this.echoOf(key);
      const t0 = performance.now();
      this.term.write(key);
      await echoed;
      into.perByte.push(performance.now() - t0);
    }
    const submitted = this.echoOf('#');
    const t0 = performance.now();
    this.term.write('\r');
    await submitted;
    into.perTurn.push(performance.now() - t0);
    // the turn report goes out now, off the key path; the next key comes after a pause far
    // shorter than anyone's reaction to their own Enter (≈ 150 ms), so a report still in flight counts
    await new Promise((r) => setTimeout(r, AFTER_ENTER_MS));
  }

  end(): Promise<void> {
    this.term.write('\x04');
    return this.exited;
  }
}

/**
 * Both runs live at once and take turns, the order swapped every turn: whatever else the machine
 * does at a moment (the bench's own collector, a neighbour) lands on both alike, so the
 * difference is the witness's.
 */
async function measure(plain: EchoTerminal, witnessed: EchoTerminal, samples: number): Promise<{ plain: Sampled; witnessed: Sampled }> {
  await Promise.all([plain.ready, witnessed.ready]);
  const a: Sampled = { perByte: [], perTurn: [] };
  const b: Sampled = { perByte: [], perTurn: [] };
  for (let i = 0; i < samples; i++) {
    if (i % 2 === 0) {
      await plain.turn(a);
      await witnessed.turn(b);
    } else {
      await witnessed.turn(b);
      await plain.turn(a);
    }
  }
  await Promise.all([plain.end(), witnessed.end()]);
  const sorted = (x: Sampled): Sampled => ({ perByte: x.perByte.sort((p, q) => p - q), perTurn: x.perTurn.sort((p, q) => p - q) });
  return { plain: sorted(a), witnessed: sorted(b) };
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
    const open = (token: string, title: string): EchoTerminal => {
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, TERM: 'xterm-256color', WARRANT_URL: server.url, WARRANT_TOKEN: token };
      // --provider claude-code: the runner's PTY relay without a human token too (the baseline)
      return new EchoTerminal(
        spawnPty(process.execPath, [CLI, 'run', '--title', title, '--provider', 'claude-code', '--', process.execPath, agent], {
          name: 'xterm-256color',
          cols: 100,
          rows: 30,
          env,
        }),
      );
    };
    const { plain, witnessed } = await measure(open(server.fleetKey, 'bench plain relay'), open(human, 'bench witnessed relay'), samples);
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
