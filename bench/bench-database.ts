import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { openStore } from '../src/store/connect.js';
import type { StoreDialect } from '../src/store/dialect/dialect.js';
import type { BenchDialect } from './bench-kit.js';

export const PG_ADMIN_URL = process.env.WARRANT_BENCH_DATABASE_URL ?? process.env.WARRANT_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * The server secret of every bench store, so a `warrant serve` child (the REST bench) shares it
 * with the in-process contexts (it never lives in the store).
 */
export const BENCH_SERVER_SECRET = randomBytes(32);

/** Where a bench store lives, so a server process can open the same one. */
export interface StoreLocation {
  databaseUrl: string | null;
  sqliteFile: string;
}

/** A fresh, migrated store for one run; `drop` removes the database (PostgreSQL) or the file. */
export async function freshStore(dialect: BenchDialect): Promise<{ store: StoreDialect; location: StoreLocation; drop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'warrant-bench-'));
  if (dialect === 'sqlite') {
    const store = await openStore({ sqliteFile: join(dir, 'bench.db') });
    return {
      store,
      location: { databaseUrl: null, sqliteFile: join(dir, 'bench.db') },
      drop: async () => {
        await store.destroy().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `warrant_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const store = await openStore({ databaseUrl: url.toString(), sqliteFile: join(dir, 'unused.db') });
  return {
    store,
    location: { databaseUrl: url.toString(), sqliteFile: join(dir, 'unused.db') },
    drop: async () => {
      await store.destroy().catch(() => {});
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Lets the store settle before a module times anything: the previous module's writes (the
 * fleet's gigabytes, the audit module's 200,000 entries) are checkpointed and flushed to disk
 * first, so a write figure measures Warrant's commits rather than the kernel writing back the
 * last module's dirty pages. Best effort: a role without CHECKPOINT still runs, unsettled.
 */
export async function settleStore(store: StoreDialect, dialect: BenchDialect): Promise<void> {
  try {
    if (dialect === 'postgres') await sql`checkpoint`.execute(store.kysely);
    else await sql`pragma wal_checkpoint(truncate)`.execute(store.kysely);
  } catch {
    // not permitted (a non-superuser role): the figures are taken unsettled
  }
  if (process.platform !== 'win32') execFileSync('sync');
}

export async function postgresReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}
