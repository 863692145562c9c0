import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Writable } from 'node:stream';

/** How a child ended: its exit status, or the reason it never ran. */
export type AgentEnd = { code: number } | { error: Error };

/** The agent the runner runs, whether a plain child process or one under the runner's PTY. */
export interface AgentProcess {
  /** resolves once: a spawn failure, or the child's start */
  spawned: Promise<Error | null>;
  /** resolves once, from the moment of spawn: a child that ends before any report still yields it */
  ended: Promise<AgentEnd>;
  kill(signal: NodeJS.Signals): void;
  /** the agent's input, when the runner owns it (`--inbox`) */
  input: Writable | null;
}

export function exitCodeOf(exitCode: number | null, signal: NodeJS.Signals | number | null): number {
  if (exitCode !== null && !(exitCode === 0 && typeof signal === 'number' && signal > 0)) return exitCode;
  if (typeof signal === 'number') return 128 + signal;
  return 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}

/**
 * A plain child process. `spawn` failures arrive as `error` and may or may not be followed by
 * `exit`; the listeners are attached before the caller awaits anything.
 */
export function spawnPlain(cmd: string, args: string[], env: Record<string, string>, ownInput: boolean): AgentProcess {
  let child: ChildProcess;
  try {
    child = spawn(cmd, args, { env, stdio: [ownInput ? 'pipe' : 'inherit', 'inherit', 'inherit'] });
  } catch (error) {
    const e = error as Error;
    return { spawned: Promise.resolve(e), ended: Promise.resolve({ error: e }), kill: () => {}, input: null };
  }
  let settled = false;
  const spawned = new Promise<Error | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', (error) => resolve(error));
  });
  const ended = new Promise<AgentEnd>((resolve) => {
    child.once('exit', (exitCode, signal) => {
      if (!settled) resolve({ code: exitCodeOf(exitCode, signal) });
      settled = true;
    });
    child.once('error', (error) => {
      // an error after a successful spawn (a failed kill) is not the child's end
      if (child.pid !== undefined || settled) return;
      settled = true;
      resolve({ error });
    });
  });
  child.stdin?.on('error', () => {}); // an agent that closed its input must not crash the runner
  return {
    spawned,
    ended,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    input: child.stdin ?? null,
  };
}
