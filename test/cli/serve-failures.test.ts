import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, pgAvailable, type DialectName, type TestDatabase } from '../helpers/databases.js';
import { CLI } from '../helpers/server-process.js';

/**
 * A node that cannot start fails loudly (docs/operations.md "Exit codes"): it closes what it
 * opened and exits non-zero, on both backends — never a live process that serves nothing.
 */

interface Exit {
  code: number | null;
  pid: number;
  stderr: string;
}

/** Runs `warrant serve` and waits for it to exit by itself (the test's timeout bounds the wait). */
function serveUntilExit(args: string[], dataDir: string): Promise<Exit> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    env: { PATH: process.env.PATH ?? '', WARRANT_DATA_DIR: dataDir, WARRANT_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, pid: child.pid!, stderr })));
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

describe.each<DialectName>(['sqlite', 'postgres'])('warrant serve on a taken port [%s]', (dialect) => {
  it.skipIf(dialect === 'postgres' && !pgAvailable())(
    'exits 1 naming the port and the fix, closes its database connections, leaves no process',
    { timeout: 60_000 },
    async () => {
      const db = await createTestDatabase(dialect);
      cleanups.push(() => db.drop());
      const dataDir = mkdtempSync(join(tmpdir(), 'warrant-taken-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const { port, server } = await takenPort();
      try {
        const exit = await serveUntilExit(['--port', String(port), ...(db.databaseUrl ? ['--database-url', db.databaseUrl] : [])], dataDir);
        expect(exit.code).toBe(1);
        expect(exit.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE)`);
        expect(exit.stderr).toContain('--port');
        // a first start that failed still says where the fleet key it created is
        expect(exit.stderr).toContain(`A fleet key was created before the failure: ${join(dataDir, 'fleet-key')}`);
        expect(gone(exit.pid)).toBe(true);
        if (db.databaseUrl) expect(await connectionsTo(db)).toBe(0);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );
});

async function connectionsTo(db: TestDatabase): Promise<number> {
  const name = new URL(db.databaseUrl!).pathname.slice(1);
  const client = new pg.Client({ connectionString: db.databaseUrl! });
  await client.connect();
  try {
    const r = await client.query<{ n: string }>('select count(*) as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    return Number(r.rows[0]!.n);
  } finally {
    await client.end();
  }
}

describe('warrant serve without a usable store', () => {
  it.skipIf(!pgAvailable())('exits 1 when PostgreSQL does not answer', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'warrant-nopg-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // a port nothing listens on: a closed listener's
    const { port, server } = await takenPort();
    await new Promise((resolve) => server.close(resolve));
    const exit = await serveUntilExit(['--port', '0', '--database-url', `postgres://postgres@127.0.0.1:${port}/nowhere`], dataDir);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/ECONNREFUSED/);
    expect(gone(exit.pid)).toBe(true);
  });

  it('exits 1 when the SQLite file cannot be migrated (not a database)', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'warrant-garbage-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'warrant.db'), 'this is not a database, just text long enough to fill a header page '.repeat(20));
    const exit = await serveUntilExit(['--port', '0'], dataDir);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/not a database/);
    expect(gone(exit.pid)).toBe(true);
  });
});
