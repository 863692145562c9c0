import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, type Config } from './config.js';
import { openStore } from './store/connect.js';
import type { StoreDialect } from './store/dialect/dialect.js';
import type { MigrationHooks } from './store/migration-hooks.js';
import { serverSecretCheck, serverSecretMismatch, storeHasServerSecret } from './app/bootstrap.js';

/**
 * The server secret session tokens are derived from lives outside the store
 * (docs/operations.md "The server secret"): `WARRANT_SERVER_SECRET` or `--server-secret-file`
 * (the same on every node), else `<data dir>/server-secret`, created 0600 on first start. The
 * store keeps only its check value, so a copy of the store alone derives no credential.
 */
const SERVER_SECRET_FILE = 'server-secret';

interface ServerSecretSource {
  /** where the secret comes from, as the operator names it */
  origin: string;
  /** the secret; null while `<data dir>/server-secret` does not exist yet */
  secret: Buffer | null;
  /** the data-dir file this node writes (null when the secret is given explicitly) */
  writablePath: string | null;
}

const HEX_SECRET = /^(?:[0-9a-fA-F]{2}){32,}$/;

function parseSecret(text: string, origin: string): Buffer {
  const hex = text.trim();
  if (!HEX_SECRET.test(hex))
    throw new ConfigError(
      `Invalid configuration:\n  ${origin}: must hold at least 64 hexadecimal characters (32 bytes), e.g. the output of \`openssl rand -hex 32\`.`,
    );
  return Buffer.from(hex, 'hex');
}

function readIfPresent(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`Cannot read the server secret ${path}: ${(error as Error).message}`);
  }
}

function serverSecretSource(config: Config): ServerSecretSource {
  if (config.serverSecret) return { origin: 'WARRANT_SERVER_SECRET', secret: parseSecret(config.serverSecret, 'WARRANT_SERVER_SECRET'), writablePath: null };
  if (config.serverSecretFile) {
    const origin = `--server-secret-file ${config.serverSecretFile}`;
    const text = readIfPresent(config.serverSecretFile);
    if (text === null) throw new ConfigError(`Invalid configuration:\n  ${origin}: no such file.`);
    return { origin, secret: parseSecret(text, origin), writablePath: null };
  }
  const path = join(config.dataDir, SERVER_SECRET_FILE);
  const text = readIfPresent(path);
  return { origin: path, secret: text === null ? null : parseSecret(text, path), writablePath: path };
}

/** Writes the data-dir secret file (0600, in a 0700 dir); an existing one is never overwritten. */
function writeSecretFile(path: string, secret: Buffer): Buffer {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, secret.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // another process on this data dir wrote it first: that one is the secret
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return parseSecret(readFileSync(path, 'utf8'), path);
    throw error;
  }
  chmodSync(path, 0o600);
  return secret;
}

function same(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Migration 011's help: the secret an earlier version kept in the store moves out of it. */
function secretMigrationHooks(source: ServerSecretSource, notice: (line: string) => void): MigrationHooks {
  return {
    async relocateServerSecret(legacyHex: string): Promise<string> {
      const legacy = Buffer.from(legacyHex, 'hex');
      if (source.secret) {
        if (!same(source.secret, legacy)) {
          throw serverSecretMismatch(
            `This store kept its server secret inside it (an earlier version), and that secret differs from ${source.origin}; start this node once without WARRANT_SERVER_SECRET and --server-secret-file (it moves the store's secret to <data dir>/server-secret), then give that file's content to every node.`,
          );
        }
        notice(`Server secret: removed from the store on upgrade; ${source.origin} holds the same secret, and tokens minted before keep working.`);
      } else {
        source.secret = writeSecretFile(source.writablePath!, legacy);
        notice(
          `Server secret: moved out of the store on upgrade into ${source.writablePath} (mode 0600); back it up with the data dir, and give its content to every node as WARRANT_SERVER_SECRET. Tokens minted before keep working.`,
        );
      }
      return serverSecretCheck(source.secret);
    },
  };
}

/**
 * Opens (and migrates) the configured store and settles the server secret: the configured one,
 * else the data-dir file, else — on a store that names none yet — a new one written to the
 * data dir. A store set up with a secret this node does not have refuses it (exit 2). The
 * check value itself is compared by `createAppContext`.
 */
export async function openStoreWithSecret(config: Config, notice: (line: string) => void): Promise<{ store: StoreDialect; serverSecret: Buffer }> {
  const source = serverSecretSource(config);
  const store = await openStore({ databaseUrl: config.databaseUrl ?? null, sqliteFile: config.sqliteFile }, { hooks: secretMigrationHooks(source, notice) });
  try {
    if (source.secret) return { store, serverSecret: source.secret };
    if (await storeHasServerSecret(store)) {
      throw serverSecretMismatch(
        `${source.writablePath} does not exist, and this store was set up with a server secret: restore that file from the data dir of the node that created the store, or set WARRANT_SERVER_SECRET (or --server-secret-file) to the secret every node shares.`,
      );
    }
    return { store, serverSecret: writeSecretFile(source.writablePath!, randomBytes(32)) };
  } catch (error) {
    await store.destroy().catch(() => {});
    throw error;
  }
}

/**
 * `warrant serve` warns when other users can read the data dir or the files in it: whoever can
 * read them is an admin of this store. Returns the warning lines (none when all is private).
 */
export function dataDirExposure(dataDir: string): string[] {
  const exposed: string[] = [];
  for (const path of [dataDir, ...['warrant.db', 'warrant.db-wal', 'warrant.db-shm', SERVER_SECRET_FILE, 'fleet-key'].map((f) => join(dataDir, f))]) {
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) exposed.push(`${path} (mode ${(mode & 0o777).toString(8).padStart(4, '0')})`);
  }
  if (exposed.length === 0) return [];
  return [
    `Warning: other users can read ${exposed.join(', ')}; whoever can read the data dir is an admin of this store.`,
    `  Fix: chmod 700 ${dataDir} && chmod 600 ${dataDir}/*`,
  ];
}
