import pino from 'pino';
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
export async function withStore<T>(flags: StoreFlags, fn: (ctx: AppContext, admin: Caller, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env, { ...(flags.dataDir ? { dataDir: flags.dataDir } : {}), ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}) });
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
