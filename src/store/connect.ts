import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StoreDialect } from './dialect/dialect.js';
import { openPostgres } from './dialect/postgres.js';
import { openSqlite } from './dialect/sqlite.js';
import { migrateToLatest } from './migrator.js';

export interface StoreLocation {
  /** postgres://… or postgresql://…; absent means embedded SQLite */
  databaseUrl?: string | null;
  /** the SQLite file, used when no database URL is given */
  sqliteFile: string;
}

/** The one place the dialect is chosen. */
export function isPostgresUrl(url: string | null | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

export async function openStore(location: StoreLocation, options: { migrate?: boolean } = {}): Promise<StoreDialect> {
  let dialect: StoreDialect;
  if (isPostgresUrl(location.databaseUrl)) {
    dialect = openPostgres({ connectionString: location.databaseUrl });
  } else {
    if (location.sqliteFile !== ':memory:') mkdirSync(dirname(location.sqliteFile), { recursive: true });
    dialect = openSqlite({ filename: location.sqliteFile });
  }
  if (options.migrate !== false) {
    try {
      await migrateToLatest(dialect);
    } catch (error) {
      await dialect.destroy().catch(() => {});
      throw error;
    }
  }
  return dialect;
}
