import { closeSync, readFileSync } from 'node:fs';
import { inheritable } from './child-env.js';
import type { WitnessNative } from './native-witness.js';

/**
 * Keeping the runner's credentials out of its own environment block (docs/human-messages.md,
 * "why the agent cannot forge a witnessed prompt"): `/proc/<pid>/environ` shows the block a
 * process was started with, whatever it does to `process.env` afterwards, so the runner
 * re-executes itself (the same pid, a new block) with every credential moved into a pipe it
 * reads once, after it has made itself non-dumpable.
 */

/** Names the pipe's descriptor in the re-executed runner; it is a `WARRANT_*`, so the agent never sees it. */
export const CREDENTIAL_FD_VARIABLE = 'WARRANT_RUNNER_CREDENTIAL_FD';

/** Kept in the block: where the server is and where the store is, which name no secret. */
const KEPT = new Set(['WARRANT_URL', 'WARRANT_DATA_DIR']);

/** The block the runner re-executes with, and what moves into the pipe (every credential, store URL and token-shaped value). */
export function splitEnvironment(env: NodeJS.ProcessEnv): { kept: Record<string, string>; moved: Record<string, string> } {
  const kept: Record<string, string> = {};
  const moved: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || key === CREDENTIAL_FD_VARIABLE) continue;
    if (inheritable(key, value) || KEPT.has(key)) kept[key] = value;
    else moved[key] = value;
  }
  return { kept, moved };
}

/** Re-executes this process without its credentials in the block. Returns only on failure (the reason). */
export function reexecWithoutCredentials(native: WitnessNative, env: NodeJS.ProcessEnv): string {
  const { kept, moved } = splitEnvironment(env);
  const argv = [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
  try {
    native.reexec(
      process.execPath,
      argv,
      Object.entries(kept).map(([k, v]) => `${k}=${v}`),
      JSON.stringify(moved),
      CREDENTIAL_FD_VARIABLE,
    );
  } catch (error) {
    return (error as Error).message;
  }
  return 'execve returned';
}

/**
 * In the re-executed runner: the credentials from the pipe, merged back into the environment the
 * runner works with (in memory only), or null when this process was not re-executed.
 */
export function takeCredentials(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv | null {
  const fdText = env[CREDENTIAL_FD_VARIABLE];
  if (fdText === undefined) return null;
  delete env[CREDENTIAL_FD_VARIABLE];
  const fd = Number(fdText);
  if (!Number.isSafeInteger(fd) || fd < 3) return null;
  try {
    const moved = JSON.parse(readFileSync(fd, 'utf8')) as Record<string, string>;
    return { ...env, ...moved };
  } finally {
    closeSync(fd);
  }
}
