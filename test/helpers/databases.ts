import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export type DialectName = 'sqlite' | 'postgres';

export interface TestDatabase {
  dialect: DialectName;
  /** for openStore: a postgres URL, or null for SQLite */
  databaseUrl: string | null;
  sqliteFile: string;
  drop(): Promise<void>;
}

export function pgAvailable(): boolean {
  return inject('pgAvailable');
}

/** A fresh, empty database of the dialect; drop() removes it. */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'warrant-test-'));
  const sqliteFile = join(dir, 'warrant.db');
  if (dialect === 'sqlite') {
    return { dialect, databaseUrl: null, sqliteFile, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const adminUrl = inject('pgAdminUrl');
  const name = `warrant_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dialect,
    databaseUrl: url.toString(),
    sqliteFile,
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
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
