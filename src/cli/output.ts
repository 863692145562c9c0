import { markdownToPlainText } from '../render/plain-text.js';

/** Exit codes (docs/api.md): 0 success, 1 failure, 2 usage. `warrant check` adds 3–5. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Refusals that are the caller's usage or configuration, not a failure: exit code 2 (docs/operations.md). */
const USAGE_TOKENS: ReadonlySet<string> = new Set(['invalid-request', 'server-secret-mismatch', 'deployment-mode-mismatch']);

/** The exit code for a refusal's token, thrown here or answered by a server (docs/api.md: 2 usage, 1 failure). */
export function exitCodeFor(token: string): 1 | 2 {
  return USAGE_TOKENS.has(token) ? 2 : 1;
}

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
