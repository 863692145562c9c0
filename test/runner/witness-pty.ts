/**
 * Driving `warrant run` (or any command) under a real pseudo-terminal, byte for byte, for the
 * terminal witness tests: the test is the person at the keyboard.
 */
import { resolve } from 'node:path';
import { spawn as spawnPty, type IPty } from 'node-pty';

export const WITNESS_TUI = resolve(import.meta.dirname, 'witness-tui.mjs');
export const HOOK = resolve(import.meta.dirname, '../../dist/hook/hook-main.cjs');

export interface Terminal {
  term: IPty;
  /** everything written to the terminal so far */
  bytes(): Buffer;
  text(): string;
  /** waits until the screen holds `what` (bytes after `from`), failing after `ms` with what it saw */
  until(what: string | RegExp, options?: { from?: number; ms?: number }): Promise<void>;
  /** types, in one write */
  type(keys: string | Buffer): void;
  exited: Promise<number>;
}

export function openTerminal(file: string, args: string[], env: Record<string, string>, size = { cols: 100, rows: 30 }, cwd?: string): Terminal {
  const chunks: Buffer[] = [];
  const term = spawnPty(file, args, { name: 'xterm-256color', ...size, env, encoding: null, ...(cwd ? { cwd } : {}) });
  term.onData((d) => chunks.push(Buffer.from(d as unknown as Buffer)));
  const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
  let done = false;
  void exited.then(() => (done = true));
  const bytes = () => Buffer.concat(chunks);
  const text = () => bytes().toString('latin1');
  return {
    term,
    bytes,
    text,
    async until(what, options = {}) {
      const deadline = Date.now() + (options.ms ?? 30_000);
      const seen = () => text().slice(options.from ?? 0);
      while (!(typeof what === 'string' ? seen().includes(what) : what.test(seen()))) {
        if (done || Date.now() > deadline) {
          await new Promise((r) => setTimeout(r, 100));
          throw new Error(`waited for ${String(what)}${done ? ' (the process exited)' : ''}; the terminal shows:\n${JSON.stringify(seen())}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    type: (keys) => term.write(keys),
    exited,
  };
}
