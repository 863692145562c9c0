import { existsSync } from 'node:fs';
import pino from 'pino';
import { CliExit, EXIT_FAILURE } from './output.js';
import { loadConfig, type Config } from '../config.js';
import { openStore } from '../store/connect.js';
import { createAppContext } from '../app/bootstrap.js';
import type { AppContext } from '../app/context.js';
import { systemCaller, type Caller } from '../app/caller.js';

export interface StoreFlags {
  dataDir?: string;
  databaseUrl?: string;
}

/**
 * Admin commands open the store directly (spec 06): whoever can run the host CLI against
 * the store's files is an admin (spec 01, "The trust boundary").
 */
export async function withStore<T>(
  flags: StoreFlags,
  fn: (ctx: AppContext, admin: Caller, config: Config) => Promise<T>,
  options: { mustExist?: boolean } = {},
): Promise<T> {
  const config = loadConfig(process.env, { ...(flags.dataDir ? { dataDir: flags.dataDir } : {}), ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}) });
  // a read of a store that is not there must not quietly create an empty one
  if (options.mustExist && !config.databaseUrl && !existsSync(config.sqliteFile)) {
    throw new CliExit(EXIT_FAILURE, `error: no Warrant store at ${config.sqliteFile}; pass --data-dir (or --database-url) for the store to read.`);
  }
  const store = await openStore({ databaseUrl: config.databaseUrl ?? null, sqliteFile: config.sqliteFile });
  try {
    const ctx = await createAppContext(store, {
      mode: config.mode,
      logger: pino({ level: 'silent' }),
      seed: { adminUser: config.adminUser, slackSigningSecret: config.slackSigningSecret },
    });
    return await fn(ctx, systemCaller('cli'), config);
  } finally {
    await store.destroy();
  }
}

/** The flags of every command that opens the store directly. */
export function storeFlags<C extends { option(flags: string, description: string): C }>(cmd: C): C {
  return cmd.option('--data-dir <dir>', 'the data dir (default ./.warrant or $WARRANT_DATA_DIR)').option('--database-url <url>', 'PostgreSQL instead of SQLite (or $DATABASE_URL)');
}
