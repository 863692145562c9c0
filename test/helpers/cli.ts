import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import type { Harness } from './harness.js';

const BIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

/** Serves the harness's app on a real loopback socket, for the built CLI to talk to. */
export async function listen(h: Harness): Promise<{ url: string; close(): Promise<void> }> {
  const server: ServerType = serve({ fetch: h.service.app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((ok, fail) => {
    server.once('listening', () => ok());
    server.once('error', fail);
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

/** Runs the built binary (`npm run build` first) and returns its exit code and output. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` before the CLI tests`);
  return new Promise((ok) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
      ok({ code, stdout, stderr });
    });
  });
}
