import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { StoreDialect } from '../store/dialect/dialect.js';
import { getSetting, seedSetting } from '../store/settings-repo.js';
import { ActorCache, ensureActor } from '../store/actors-repo.js';
import { findTokenByHash } from '../store/tokens-repo.js';
import { LiveHub } from './live-hub.js';
import type { HierarchyHub } from './lineage/hierarchy-hub.js';
import { HierarchyRefresher } from './lineage/hierarchy-refresh.js';
import { randomIds, systemClock, type AppContext, type Clock, type DeploymentMode, type IdSource } from './context.js';
import { hashToken, registerToken } from './credentials.js';
import { WarrantError } from '../core/errors.js';

/**
 * The check value of the server secret (the secret itself left the store in migration 011):
 * an HMAC of a fixed label, from which no token follows.
 */
export const SETTING_SERVER_SECRET_CHECK = 'server_secret_check';
export const SETTING_ADMIN_USER = 'admin_user';
export const SETTING_SLACK_SIGNING_SECRET = 'slack_signing_secret';
export const SETTING_ALLOWED_HOSTS = 'allowed_hosts';
export const SETTING_DEPLOYMENT_MODE = 'deployment_mode';
export const DEPLOYMENT_MODES = ['single-admin', 'multi-user'] as const;

export interface ContextOptions {
  mode?: DeploymentMode;
  clock?: Clock;
  ids?: IdSource;
  logger?: Logger;
  leaseMs?: number;
  /**
   * The server secret (docs/operations.md "The server secret"): production entry points pass
   * the configured one. Absent, one random secret per process is used (tests and benches that
   * open several contexts on one store in one process).
   */
  serverSecret?: Buffer;
  /** first-start seeds for the shared settings (docs/concepts.md) */
  seed?: { adminUser?: string | undefined; slackSigningSecret?: string | undefined };
}

/** Builds the app context over an opened, migrated store; seeds shared settings on first start. */
export async function createAppContext(store: StoreDialect, options: ContextOptions = {}): Promise<AppContext> {
  const clock = options.clock ?? systemClock;
  const now = clock.now().toISOString();
  const db = store.kysely;
  const serverSecret = options.serverSecret ?? PROCESS_SECRET;
  await verifyServerSecret(db, serverSecret, now);
  const mode = await settleDeploymentMode(db, options.mode, now);
  if (options.seed?.adminUser) await seedSetting(db, SETTING_ADMIN_USER, options.seed.adminUser, now);
  if (options.seed?.slackSigningSecret) await seedSetting(db, SETTING_SLACK_SIGNING_SECRET, options.seed.slackSigningSecret, now);
  const logger = options.logger ?? pino({ level: 'silent' });
  const actors = new ActorCache();
  await ensureActor(db, actors, { kind: 'system' }, now);
  await ensureActor(db, actors, { kind: 'fleet' }, now);
  const ctx: AppContext = {
    store,
    clock,
    ids: options.ids ?? randomIds,
    logger,
    actors,
    live: new LiveHub(store, logger),
    serverSecret,
    mode,
    leaseMs: options.leaseMs ?? 60_000,
    // set just below: the refresher reads through the context it belongs to
    hierarchies: undefined as unknown as HierarchyHub,
  };
  ctx.hierarchies = new HierarchyRefresher(ctx);
  return ctx;
}

const PROCESS_SECRET = randomBytes(32);

/**
 * The deployment mode is the store's, so every node and the host CLI agree on it: the first
 * start records the mode it was given (default single-admin); afterwards a node given another
 * one refuses to start instead of quietly judging visibility differently from its peers.
 */
async function settleDeploymentMode(db: StoreDialect['kysely'], requested: DeploymentMode | undefined, now: string): Promise<DeploymentMode> {
  await seedSetting(db, SETTING_DEPLOYMENT_MODE, requested ?? 'single-admin', now);
  const stored = (await getSetting(db, SETTING_DEPLOYMENT_MODE)) as DeploymentMode;
  if (requested !== undefined && requested !== stored) {
    throw new WarrantError(
      'deployment-mode-mismatch',
      `WARRANT_MODE (or --mode) says ${requested}, but this store's deployment mode is ${stored}, which every node and the host CLI share. Unset WARRANT_MODE, or change the store's mode with \`warrant settings set deployment_mode ${requested}\` and restart every node.`,
      { details: { requested, stored } },
    );
  }
  return stored;
}

/** The check value stored for a secret: it shows whether two nodes share one, and derives nothing. */
export function serverSecretCheck(secret: Buffer): string {
  return 'v1:' + createHmac('sha256', secret).update('warrant-server-secret-check').digest('hex');
}

/** True when the store already names a server secret (so a node must bring that one). */
export async function storeHasServerSecret(store: StoreDialect): Promise<boolean> {
  return (await getSetting(store.kysely, SETTING_SERVER_SECRET_CHECK)) !== null;
}

/**
 * The first node to start stores the check value of its secret; every later one must match it
 * (two nodes racing on a fresh store: the insert that loses reads the winner's value).
 */
async function verifyServerSecret(db: StoreDialect['kysely'], secret: Buffer, now: string): Promise<void> {
  const mine = serverSecretCheck(secret);
  const stored = await seedSetting(db, SETTING_SERVER_SECRET_CHECK, mine, now);
  const a = Buffer.from(stored);
  const b = Buffer.from(mine);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw serverSecretMismatch();
}

export function serverSecretMismatch(sentence?: string): WarrantError {
  return new WarrantError(
    'server-secret-mismatch',
    sentence ??
      "This node's server secret is not the one this store was set up with, so the session tokens it derived would not match; give every node the same secret (WARRANT_SERVER_SECRET or --server-secret-file, or the original <data dir>/server-secret).",
  );
}

/** Registers a fleet key the operator supplied (env or file) if the store does not know it yet. */
export async function registerFleetKey(ctx: AppContext, token: string, label: string): Promise<number> {
  const db = ctx.store.kysely;
  const existing = await findTokenByHash(db, hashToken(token));
  if (existing) return existing.id;
  return registerToken(db, token, { kind: 'fleet', label }, ctx.clock.now().toISOString());
}
