import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import type { Harness } from './harness.js';

/** The built binary (`npm run build` first), run as a child process like a user would. */
export const CLI = resolve('dist/cli/main.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
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
  return h.database.databaseUrl ? ['--database-url', h.database.databaseUrl] : ['--data-dir', dirname(h.database.sqliteFile)];
}

/** Serves the harness app on a loopback port for commands that talk to a server. */
export async function listen(h: Harness): Promise<{ url: string; close(): Promise<void> }> {
  const server: ServerType = await new Promise((ok) => {
    const s = serve({ fetch: h.service.app.fetch, hostname: '127.0.0.1', port: 0 }, () => ok(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => server.close(() => ok())) };
}
