import { markdownToPlainText } from '../render/plain-text.js';

/** Exit codes (docs/api.md): 0 success, 1 failure, 2 usage. `warrant check` adds 3–5. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * A long-running command (`serve`) that fails to start has closed what it opened; should a
 * driver still hold the event loop, it must exit anyway rather than linger serving nothing.
 * Other commands never exit hard: that could cut their output short.
 */
export const exitPolicy = { hardExitOnFailure: false };

export class CliExit extends Error {
  constructor(
    readonly code: number,
    message = '',
  ) {
    super(message);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export function printText(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

/**
 * A server markdown rendering: plain text when stdout is a terminal (no markdown escapes, no
 * markers), the markdown itself when piped, so scripts and `> file.md` keep the exact rendering.
 * `WARRANT_OUTPUT=markdown|plain` overrides the guess.
 */
export function printMarkdown(markdown: string, env: NodeJS.ProcessEnv = process.env): void {
  const wanted = env.WARRANT_OUTPUT === 'plain' || env.WARRANT_OUTPUT === 'markdown' ? env.WARRANT_OUTPUT : process.stdout.isTTY ? 'plain' : 'markdown';
  printText(wanted === 'plain' ? markdownToPlainText(markdown) : markdown);
}
