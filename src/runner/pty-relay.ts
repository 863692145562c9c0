import type { AgentEnd, AgentProcess } from './agent-process.js';
import { exitCodeOf } from './agent-process.js';
import { OutputFilter } from './output-filter.js';

/** What the relay tells the runner about the person's keys, and how it lets the runner type. */
interface PtyRelay extends AgentProcess {
  /** write bytes into the agent's terminal as if typed (the runner's own delivery) */
  type(bytes: string): void;
  /** while held, the person's keys are buffered, then released in order */
  holdKeys(hold: boolean): void;
  /** the agent process (the PTY's session leader) */
  pid: number;
  /** the PTY master, whose terminal settings are the agent's (echo) */
  masterFd: number;
}

interface PtyRelayOptions {
  /** every chunk the person typed, before it reaches the agent */
  onKeys?: (bytes: Buffer) => void;
  /** drop ENQ and OSC 52 from the agent's output, so it cannot make the person's terminal type (the witness) */
  filterOutput?: boolean;
}

/**
 * Runs the agent under a pseudo-terminal the runner owns: the agent gets only the far side, the
 * person's keys are relayed in (raw mode) and the agent's output out, byte for byte; the window
 * size follows the real terminal (SIGWINCH reaches the agent as a resize). The exit status
 * passes through. Bytes both ways (no decoding): what the agent writes reaches the terminal as
 * written, apart from what `filterOutput` drops. docs/design/agent-runtimes.md, "delivery into an interactive agent".
 */
export async function spawnUnderPty(cmd: string, args: string[], env: Record<string, string>, options: PtyRelayOptions = {}): Promise<PtyRelay> {
  const { spawn } = await import('node-pty');
  const stdin = process.stdin;
  const stdout = process.stdout;
  let term;
  try {
    term = spawn(cmd, args, {
      name: env.TERM || 'xterm-256color',
      cols: stdout.columns || 80,
      rows: stdout.rows || 24,
      cwd: process.cwd(),
      env,
      encoding: null,
    });
  } catch (error) {
    const e = error as Error;
    return {
      spawned: Promise.resolve(e),
      ended: Promise.resolve({ error: e }),
      kill: () => {},
      input: null,
      type: () => {},
      holdKeys: () => {},
      pid: -1,
      masterFd: -1,
    };
  }
  const filter = options.filterOutput ? new OutputFilter() : null;
  let held: Buffer[] | null = null;
  const onKeys = (chunk: Buffer) => {
    if (held) return void held.push(chunk);
    options.onKeys?.(chunk);
    term.write(chunk);
  };
  const onResize = () => term.resize(stdout.columns || 80, stdout.rows || 24);
  const wasRaw = stdin.isTTY ? stdin.isRaw : false;
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.on('data', onKeys);
  stdin.resume();
  stdout.on('resize', onResize);
  // with `encoding: null` node-pty hands over Buffers, though its type says string
  const dataSub = term.onData((data) => {
    const bytes = data as unknown as Buffer;
    stdout.write(filter ? filter.push(bytes) : bytes);
  });
  const ended = new Promise<AgentEnd>((resolve) => {
    term.onExit(({ exitCode, signal }) => {
      stdin.off('data', onKeys);
      stdout.off('resize', onResize);
      dataSub.dispose();
      if (filter) stdout.write(filter.flush());
      if (stdin.isTTY) stdin.setRawMode(wasRaw);
      stdin.pause();
      resolve({ code: exitCodeOf(exitCode, signal ?? null) });
    });
  });
  return {
    spawned: Promise.resolve(null),
    ended,
    kill: (signal) => {
      try {
        term.kill(signal);
      } catch {
        // already gone
      }
    },
    input: null,
    type: (bytes) => term.write(Buffer.from(bytes, 'utf8')),
    pid: term.pid,
    masterFd: (term as unknown as { fd: number }).fd,
    holdKeys: (hold) => {
      if (hold) {
        held ??= [];
        return;
      }
      const queued = held ?? [];
      held = null;
      for (const chunk of queued) onKeys(chunk);
    },
  };
}
