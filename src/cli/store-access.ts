import { existsSync } from 'node:fs';
import { CliExit, EXIT_FAILURE, EXIT_USAGE } from './output.js';
import type { Config } from '../config.js';
import type { AppContext, Caller } from '../app/kernel.js';

export interface StoreFlags {
  dataDir?: string;
  databaseUrl?: string;
  serverSecretFile?: string;
}

/**
 * Admin commands open the store directly (docs/api.md): whoever can run the host CLI against
 * the store's files is an admin (docs/concepts.md, "The trust boundary").
 */
export async function withStore<T>(
  flags: StoreFlags,
  fn: (ctx: AppContext, admin: Caller, config: Config) => Promise<T>,
  options: { mustExist?: boolean } = {},
): Promise<T> {
  refuseInsideAgentSession(process.env);
  // loaded here, not at the top: every `warrant` command imports this file, and only the ones that open the store need the store
  const [{ loadConfig }, { openStoreWithSecret }, { createAppContext }, { systemCaller }, { default: pino }] = await Promise.all([
    import('../config.js'),
    import('../server-secret.js'),
    import('../app/deployment/index.js'),
    import('../app/kernel.js'),
    import('pino'),
  ]);
  const config = loadConfig(process.env, {
    ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
    ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}),
    ...(flags.serverSecretFile ? { serverSecretFile: flags.serverSecretFile } : {}),
  });
  // a read of a store that is not there must not quietly create an empty one
  if (options.mustExist && !config.databaseUrl && !existsSync(config.sqliteFile)) {
    throw new CliExit(EXIT_FAILURE, `error: no Warrant store at ${config.sqliteFile}; pass --data-dir (or --database-url) for the store to read.`);
  }
  // an admin command is a node too: the same secret, or it refuses (and may do the upgrade move)
  const { store, serverSecret } = await openStoreWithSecret(config, (line) => process.stderr.write(line + '\n'));
  try {
    const ctx = await createAppContext(store, {
      mode: config.mode,
      serverSecret,
      logger: pino({ level: 'silent' }),
      seed: { adminUser: config.adminUser, slackSigningSecret: config.slackSigningSecret },
    });
    return await fn(ctx, systemCaller('cli'), config);
  } finally {
    await store.destroy();
  }
}

/**
 * A command that opens the store acts as an admin, so an agent must not run it by accident
 * (say, to issue itself a human token). A guard, not a boundary: `env -u` removes it; the
 * boundary is the OS user and the store's file modes (docs/integrations.md).
 */
function refuseInsideAgentSession(env: NodeJS.ProcessEnv): void {
  if (!env.WARRANT_SESSION_TOKEN) return;
  throw new CliExit(
    EXIT_USAGE,
    'error: inside-agent-session: this command opens the Warrant store directly and acts as an admin, and it was run inside an agent session (WARRANT_SESSION_TOKEN is set). Run it from your own shell, not from an agent.',
  );
}

/** The flags of every command that opens the store directly. */
export function storeFlags<C extends { option(flags: string, description: string): C }>(cmd: C): C {
  return cmd
    .option('--data-dir <dir>', 'the data dir (default ./.warrant or $WARRANT_DATA_DIR)')
    .option('--database-url <url>', 'PostgreSQL instead of SQLite (or $DATABASE_URL)')
    .option('--server-secret-file <file>', 'the server secret every node shares (or $WARRANT_SERVER_SECRET; default <data dir>/server-secret)');
}
