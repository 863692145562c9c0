import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import type { Harness } from './harness.js';

/** The built binary (`npm run build` first), run as a child process like a user would. */
export const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/cli/main.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The harness's app on a real loopback port, for the CLI binary to talk to. */
export async function listen(h: Harness): Promise<{ url: string; close: () => Promise<void> }> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the CLI tests`);
  const server: ServerType = await new Promise((ok) => {
    const s = serve({ fetch: h.service.app.fetch, hostname: '127.0.0.1', port: 0 }, () => ok(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => server.close(() => ok())) };
}

/** Runs the built binary (asynchronously: the server lives in this process). */
export function cli(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return new Promise((ok) => {
    const child = execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
      ok({ code, stdout, stderr });
    });
    if (stdin !== undefined) child.stdin?.end(stdin);
    else child.stdin?.end();
  });
}

export function runCli(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** The flags that point an admin command at the harness's store. */
export function storeArgs(h: Harness): string[] {
  // the data dir holds the harness's server secret on both backends
  return h.database.databaseUrl
    ? ['--database-url', h.database.databaseUrl, '--data-dir', dirname(h.database.sqliteFile)]
    : ['--data-dir', dirname(h.database.sqliteFile)];
}
