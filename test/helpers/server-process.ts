import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CLI = resolve(import.meta.dirname, '../../dist/cli/main.js');

export interface ServerProcess {
  url: string;
  dataDir: string;
  cwd: string;
  fleetKey: string;
  output: () => string;
  process: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built server as a child process and waits for its banner. */
/** `entry` replaces `dist/cli/main.js serve` (e.g. `scripts/start.mjs`, what `npm start` runs). */
export async function startServer(
  options: { args?: string[]; env?: Record<string, string>; cwd?: string; dataDir?: string; entry?: string[] } = {},
): Promise<ServerProcess> {
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), 'warrant-srv-'));
  const dataDir = options.dataDir ?? join(cwd, '.warrant');
  const args = [...(options.entry ?? [CLI, 'serve']), ...(options.args ?? ['--port', '0'])];
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, WARRANT_DATA_DIR: dataDir, WARRANT_LOG_LEVEL: 'warn', ...(options.env ?? {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000);
    const check = () => {
      const m = /Warrant listening on (http\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  const fleetKey = readFileSync(join(dataDir, 'fleet-key'), 'utf8').trim();
  return {
    url,
    dataDir,
    cwd,
    fleetKey,
    output: () => out,
    process: child,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill(signal);
      const code = await exited;
      if (!options.cwd) rmSync(cwd, { recursive: true, force: true });
      return code;
    },
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `warrant` binary. */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolveResult) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, WARRANT_TOKEN: '', WARRANT_SESSION_TOKEN: '', ...(options.env ?? {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
    child.on('close', (code) => resolveResult({ code: code ?? -1, stdout, stderr }));
  });
}
