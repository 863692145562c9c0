import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import type { Harness } from './harness.js';

export const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/cli/main.js');

/** The harness's app on a real loopback port, for the CLI binary to talk to. */
export async function listen(h: Harness): Promise<{ url: string; close: () => Promise<void> }> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the CLI tests`);
  const server: ServerType = serve({ fetch: h.service.app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((ok, fail) => {
    server.once('listening', () => ok());
    server.once('error', fail);
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => server.close(() => ok())) };
}

/** Runs the built binary (asynchronously: the server lives in this process). */
export function cli(args: string[], env: Record<string, string>, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    const child = execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
      ok({ code, stdout, stderr });
    });
    if (stdin !== undefined) child.stdin?.end(stdin);
    else child.stdin?.end();
  });
}
