import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveSessionToken } from '../../src/app/credentials.js';
import { openStore } from '../../src/store/connect.js';
import { createTestDatabase, pgAvailable, type DialectName, type TestDatabase } from '../helpers/databases.js';
import { runCli, startServer, type ServerProcess } from '../helpers/server-process.js';

/**
 * No credential from the store alone (docs/operations.md "The server secret"): the secret lives
 * outside the store, the store keeps a check value, a node with another secret refuses to
 * start, an earlier store's secret moves out on upgrade, and the files are private.
 */

const mode = (path: string) => statSync(path).mode & 0o777;

async function createAttached(server: ServerProcess): Promise<{ id: number; activation: number; token: string }> {
  const res = await fetch(`${server.url}/api/v1/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.fleetKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'running session', attach: true }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { session: { id: number; activation: number }; session_token: string };
  return { id: body.session.id, activation: body.session.activation, token: body.session_token };
}

async function patchTitle(server: ServerProcess, id: number, token: string, title: string): Promise<number> {
  const res = await fetch(`${server.url}/api/v1/sessions/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title }),
  });
  await res.text();
  return res.status;
}

/** Raw SQL on a store, as someone holding only its files (or its connection) would run it. */
async function withRawStore<T>(
  db: TestDatabase,
  sqliteFile: string,
  fn: (run: (text: string) => Promise<Record<string, unknown>[]>) => Promise<T>,
): Promise<T> {
  const store = await openStore({ databaseUrl: db.databaseUrl, sqliteFile }, { migrate: false });
  try {
    return await fn(async (text) => (await sql.raw<Record<string, unknown>>(text).execute(store.kysely)).rows);
  } finally {
    await store.destroy();
  }
}

/** Every way the values a store holds could be read as a secret. */
function candidateSecrets(values: string[]): Buffer[] {
  const out: Buffer[] = [];
  for (const v of values) {
    out.push(Buffer.from(v));
    if (/^[0-9a-f]+$/i.test(v)) out.push(Buffer.from(v, 'hex'));
    const tail = v.split(':').pop()!;
    if (/^[0-9a-f]+$/i.test(tail)) out.push(Buffer.from(tail, 'hex'), Buffer.from(tail));
  }
  return out;
}

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

describe.each<DialectName>(['sqlite', 'postgres'])('the server secret stays out of the store [%s]', (dialect) => {
  const skip = dialect === 'postgres' && !pgAvailable();
  const dbArgs = (db: TestDatabase) => (db.databaseUrl ? ['--port', '0', '--database-url', db.databaseUrl] : ['--port', '0']);

  it.skipIf(skip)('a copy of the store alone derives no token the server accepts; a node with another secret refuses to start', async () => {
    const db = await createTestDatabase(dialect);
    databases.push(db);
    const server = await startServer({ args: dbArgs(db) });
    try {
      const session = await createAttached(server);
      const secretFile = join(server.dataDir, 'server-secret');
      expect(mode(secretFile)).toBe(0o600);
      // the derivation below is the server's: with the real secret it yields the real token
      const real = Buffer.from(readFileSync(secretFile, 'utf8').trim(), 'hex');
      expect(deriveSessionToken(real, session.id, session.activation)).toBe(session.token);
      expect(await patchTitle(server, session.id, session.token, 'renamed by its runtime')).toBe(200);

      // what the store holds: every settings value, tried as the secret
      const sqliteFile = join(server.dataDir, 'warrant.db');
      const settings = await withRawStore(db, sqliteFile, (run) => run('select key, value from settings'));
      expect(settings.map((r) => r.key)).not.toContain('server_secret');
      expect(settings.find((r) => r.key === 'server_secret_check')?.value).toMatch(/^v1:[0-9a-f]{64}$/);
      const forged = candidateSecrets(settings.map((r) => String(r.value))).map((s) => deriveSessionToken(s, session.id, session.activation));
      // at least the check value, read as text, as hex and without its version prefix
      expect(forged.length).toBeGreaterThanOrEqual(3);
      for (const token of forged) expect(await patchTitle(server, session.id, token, 'forged')).toBe(401);

      // a node on the same store with another secret, or with none, refuses to start (exit 2)
      const other = await runCli(['serve', ...dbArgs(db)], {
        env: { WARRANT_DATA_DIR: server.dataDir, WARRANT_SERVER_SECRET: randomBytes(32).toString('hex') },
      });
      expect(other.code).toBe(2);
      expect(other.stderr).toContain('server-secret-mismatch');
      expect(other.stderr).toMatch(/same secret/);
      const bare = mkdtempSync(join(tmpdir(), 'warrant-copy-'));
      if (dialect === 'sqlite') {
        // the copy of the store's files, without the secret file beside them
        mkdirSync(join(bare, '.warrant'), { mode: 0o700 });
        for (const f of ['warrant.db', 'warrant.db-wal'])
          if (existsSync(join(server.dataDir, f))) copyFileSync(join(server.dataDir, f), join(bare, '.warrant', f));
      }
      const copy = await runCli(['serve', ...dbArgs(db)], { env: { WARRANT_DATA_DIR: join(bare, '.warrant') } });
      expect(copy.code).toBe(2);
      expect(copy.stderr).toContain('server-secret-mismatch');
      expect(copy.stderr).toContain('server-secret does not exist');
      expect(existsSync(join(bare, '.warrant', 'server-secret'))).toBe(false);
      rmSync(bare, { recursive: true, force: true });
    } finally {
      await server.stop();
    }
  });

  it.skipIf(skip)('an earlier store moves its secret out on upgrade, once, and tokens minted before keep working', async () => {
    const db = await createTestDatabase(dialect);
    databases.push(db);
    const cwd = mkdtempSync(join(tmpdir(), 'warrant-upgrade-'));
    const dataDir = join(cwd, '.warrant');
    const first = await startServer({ cwd, dataDir, args: dbArgs(db) });
    const session = await createAttached(first);
    expect(await first.stop()).toBe(0);
    // make it the store an earlier version left: the secret inside it, no file, no check
    const secretFile = join(dataDir, 'server-secret');
    const hex = readFileSync(secretFile, 'utf8').trim();
    rmSync(secretFile);
    await withRawStore(db, join(dataDir, 'warrant.db'), async (run) => {
      await run(`insert into settings (key, value, updated_at) values ('server_secret', '${hex}', '2026-11-30T00:00:00.000Z')`);
      await run(`delete from settings where key = 'server_secret_check'`);
      await run(`delete from schema_migrations where name = '011-server-secret'`);
    });

    // a node given another secret refuses the upgrade and leaves the store as it was
    const refused = await runCli(['serve', ...dbArgs(db)], { env: { WARRANT_DATA_DIR: dataDir, WARRANT_SERVER_SECRET: randomBytes(32).toString('hex') } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('server-secret-mismatch');
    expect(refused.stderr).toContain('start this node once without WARRANT_SERVER_SECRET');
    expect(existsSync(secretFile)).toBe(false);
    const untouched = await withRawStore(db, join(dataDir, 'warrant.db'), (run) => run(`select value from settings where key = 'server_secret'`));
    expect(untouched.map((r) => r.value)).toEqual([hex]);

    const upgraded = await startServer({ cwd, dataDir, args: dbArgs(db) });
    try {
      expect(upgraded.output()).toContain(`Server secret: moved out of the store on upgrade into ${secretFile} (mode 0600)`);
      expect(readFileSync(secretFile, 'utf8').trim()).toBe(hex);
      expect(mode(secretFile)).toBe(0o600);
      expect(await patchTitle(upgraded, session.id, session.token, 'still mine after the upgrade')).toBe(200);
      const keys = await withRawStore(db, join(dataDir, 'warrant.db'), (run) => run('select key from settings'));
      expect(keys.map((r) => r.key)).not.toContain('server_secret');
      expect(keys.map((r) => r.key)).toContain('server_secret_check');
    } finally {
      await upgraded.stop();
    }
    const again = await startServer({ cwd, dataDir, args: dbArgs(db) });
    try {
      expect(again.output()).not.toContain('moved out of the store');
      expect(await patchTitle(again, session.id, session.token, 'and after a restart')).toBe(200);
    } finally {
      await again.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('several PostgreSQL nodes share WARRANT_SERVER_SECRET', () => {
  it.skipIf(!pgAvailable())('a token minted on one node works on the other; the data dirs hold no secret file', async () => {
    const db = await createTestDatabase('postgres');
    databases.push(db);
    const secret = randomBytes(32).toString('hex');
    const args = ['--port', '0', '--database-url', db.databaseUrl!];
    const a = await startServer({ args, env: { WARRANT_SERVER_SECRET: secret } });
    const b = await startServer({ args, env: { WARRANT_SERVER_SECRET: secret } });
    try {
      const session = await createAttached(a);
      expect(await patchTitle(b, session.id, session.token, 'renamed through the other node')).toBe(200);
      expect(existsSync(join(a.dataDir, 'server-secret'))).toBe(false);
      expect(existsSync(join(b.dataDir, 'server-secret'))).toBe(false);
      // a third node with its own data-dir secret does not join
      const c = await runCli(['serve', ...args], { env: { WARRANT_DATA_DIR: mkdtempSync(join(tmpdir(), 'warrant-third-')) } });
      expect(c.code).toBe(2);
      expect(c.stderr).toContain('server-secret-mismatch');
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});

describe('file modes on SQLite', () => {
  it('creates the data dir 0700 and the database, its -wal and -shm, the secret and the fleet key 0600', async () => {
    const server = await startServer();
    try {
      await createAttached(server);
      expect(mode(server.dataDir)).toBe(0o700);
      for (const f of ['warrant.db', 'warrant.db-wal', 'warrant.db-shm', 'server-secret', 'fleet-key'])
        expect([f, mode(join(server.dataDir, f))]).toEqual([f, 0o600]);
      expect(server.output()).not.toContain('other users can read');
    } finally {
      await server.stop();
    }
  });

  it('tightens an earlier store that was 0644, and warns with the fix while the data dir is open to others', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'warrant-open-'));
    const dataDir = join(cwd, '.warrant');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'warrant.db'), '');
    chmodSync(join(dataDir, 'warrant.db'), 0o644);
    const server = await startServer({ cwd, dataDir });
    try {
      expect(mode(join(dataDir, 'warrant.db'))).toBe(0o600);
      expect(server.output()).toContain(`Warning: other users can read ${dataDir} (mode 0755)`);
      expect(server.output()).toContain(`Fix: chmod 700 ${dataDir}`);
    } finally {
      await server.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('a second OS user', () => {
  // CI runs as root and must run this; elsewhere only root can create the user
  const canRun = process.getuid?.() === 0;
  it.skipIf(!canRun && !process.env.CI)('cannot read the database or the secret file of a running server', async () => {
    expect(canRun, 'this test creates an OS user and needs root (CI runs as root)').toBe(true);
    const user = `wprobe${process.pid}`;
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', user]);
    const cwd = mkdtempSync(join(tmpdir(), 'warrant-probe-'));
    // only the data dir's own modes may stand in the way: its parent is open to everyone
    chmodSync(cwd, 0o755);
    const server = await startServer({ cwd });
    try {
      await createAttached(server);
      const readAs = (path: string): number => {
        try {
          execFileSync('runuser', ['-u', user, '--', 'cat', path], { stdio: 'ignore' });
          return 0;
        } catch (error) {
          return (error as { status?: number }).status ?? -1;
        }
      };
      // the probe works: a world-readable file beside the data dir is readable to it
      writeFileSync(join(cwd, 'public.txt'), 'hello', { mode: 0o644 });
      expect(readAs(join(cwd, 'public.txt'))).toBe(0);
      for (const f of ['warrant.db', 'warrant.db-wal', 'server-secret', 'fleet-key']) expect([f, readAs(join(server.dataDir, f))]).toEqual([f, 1]);
    } finally {
      await server.stop();
      rmSync(cwd, { recursive: true, force: true });
      execFileSync('userdel', [user]);
    }
  });
});
