import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StoreDialect } from './dialect/dialect.js';
import { openPostgres } from './dialect/postgres.js';
import { openSqlite } from './dialect/sqlite.js';
import type { MigrationHooks } from './migration-hooks.js';
import { migrateToLatest } from './migrator.js';

interface StoreLocation {
  /** postgres://… or postgresql://…; absent means embedded SQLite */
  databaseUrl?: string | null;
  /** the SQLite file, used when no database URL is given */
  sqliteFile: string;
}

/** The one place the dialect is chosen. */
function isPostgresUrl(url: string | null | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

export async function openStore(location: StoreLocation, options: { migrate?: boolean; hooks?: MigrationHooks } = {}): Promise<StoreDialect> {
  let dialect: StoreDialect;
  if (isPostgresUrl(location.databaseUrl)) {
    dialect = openPostgres({ connectionString: location.databaseUrl });
  } else if (location.sqliteFile === ':memory:') {
    dialect = openSqlite({ filename: location.sqliteFile });
  } else {
    prepareSqliteFile(location.sqliteFile);
    dialect = openSqlite({ filename: location.sqliteFile });
    restrictSqliteFiles(location.sqliteFile);
  }
  if (options.migrate !== false) {
    try {
      await migrateToLatest(dialect, options.hooks);
    } catch (error) {
      await dialect.destroy().catch(() => {});
      throw error;
    }
  }
  return dialect;
}

/**
 * Whoever can read the store's files is an admin (docs/operations.md): the data dir is
 * created 0700 and the database 0600 before SQLite opens it, so its -wal and -shm (which
 * SQLite creates with the database's mode) are 0600 too.
 */
function prepareSqliteFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
}

/** A store created by an earlier version (0644) is tightened when it is opened. */
function restrictSqliteFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(f, 0o600);
    } catch (error) {
      // gone, or not ours to change (another user running a read-only command)
      if (!['ENOENT', 'EPERM'].includes(String((error as NodeJS.ErrnoException).code))) throw error;
    }
  }
}
