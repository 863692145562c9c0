import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The terminal witness's native helper (native/witness.c, built by `npm run build` with npm's
 * own node-gyp). Without it the runner does not witness: it cannot refuse debugging of itself,
 * and a witness whose memory the agent can read is no witness.
 */
export interface WitnessNative {
  /** prctl(PR_SET_DUMPABLE, 0): /proc/<pid>/environ, mem and fd, and ptrace, refused to the same OS user */
  setNonDumpable(): boolean;
  isDumpable(): boolean;
  /** TIOCEXCL / TIOCNXCL on a terminal fd */
  setExclusive(fd: number, on: boolean): boolean;
  /** TIOCGEXCL */
  isExclusive(fd: number): boolean;
  /** the ECHO and ICANON flags of the terminal on fd (a PTY master reads its slave's) */
  lineModes(fd: number): { echo: boolean; canonical: boolean };
  /** execve(path, argv, envp + `fdVariable=<fd>`), the payload readable on that fd; returns only by throwing */
  reexec(path: string, argv: string[], envp: string[], payload: string, fdVariable: string): never;
}

/** Repository root relative: the same path from src/runner (tests) and dist/runner (the CLI). */
const ADDON = fileURLToPath(new URL('../../native/build/Release/witness.node', import.meta.url));

let loaded: { native: WitnessNative } | { error: string } | null = null;

/** The helper, or why it is not there (never throws). */
export function loadWitnessNative(): { native: WitnessNative } | { error: string } {
  if (loaded) return loaded;
  if (process.platform !== 'linux') return (loaded = { error: `not supported on ${process.platform}` });
  try {
    const native = createRequire(import.meta.url)(ADDON) as WitnessNative;
    loaded = { native };
  } catch (error) {
    loaded = { error: `the native helper did not load (${(error as Error).message.split('\n')[0]}); \`npm run build\` builds it` };
  }
  return loaded;
}

/** Every uid of a process (real, effective, saved, filesystem), from /proc/<pid>/status; null when unreadable. */
function uidsOf(pid: number): number[] | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const line = /^Uid:\s+(.*)$/m.exec(status)?.[1];
    return line ? line.trim().split(/\s+/).map(Number) : null;
  } catch {
    return null;
  }
}

/**
 * `other-uid` only when none of the agent process's uids is the runner's: an agent that shares
 * the runner's OS user can read whatever that user can, so the record says `same-uid`.
 */
export function witnessIsolation(agentPid: number, runnerUid = process.getuid?.() ?? -1): 'same-uid' | 'other-uid' {
  const uids = uidsOf(agentPid);
  return uids && uids.length > 0 && !uids.includes(runnerUid) ? 'other-uid' : 'same-uid';
}

/**
 * Whether the agent's terminal hides what is typed, as a password prompt does: canonical input
 * with echo off. A full-screen TUI runs raw — echo off too, because it draws its own — and is
 * not hiding anything. Unknown counts as hidden: such a turn is never reported or recorded.
 */
export function typingHidden(native: WitnessNative, masterFd: number): boolean {
  if (masterFd < 0) return true;
  try {
    const modes = native.lineModes(masterFd);
    return modes.canonical && !modes.echo;
  } catch {
    return true;
  }
}
