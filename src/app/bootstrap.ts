import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { StoreDialect } from '../store/dialect/dialect.js';
import { getSetting, seedSetting } from '../store/settings-repo.js';
import { ActorCache, ensureActor } from '../store/actors-repo.js';
import { findTokenByHash } from '../store/tokens-repo.js';
import { LiveHub } from './live-hub.js';
import { HierarchyRefresher } from './lineage/hierarchy-refresh.js';
import { randomIds, systemClock, type AppContext, type Clock, type DeploymentMode, type IdSource } from './context.js';
import { hashToken, registerToken } from './credentials.js';

export const SETTING_SERVER_SECRET = 'server_secret';
export const SETTING_ADMIN_USER = 'admin_user';
export const SETTING_SLACK_SIGNING_SECRET = 'slack_signing_secret';
export const SETTING_ALLOWED_HOSTS = 'allowed_hosts';

export interface ContextOptions {
  mode?: DeploymentMode;
  clock?: Clock;
  ids?: IdSource;
  logger?: Logger;
  leaseMs?: number;
  /** first-start seeds for the shared settings (spec 01) */
  seed?: { adminUser?: string | undefined; slackSigningSecret?: string | undefined };
}

/** Builds the app context over an opened, migrated store; seeds shared settings on first start. */
export async function createAppContext(store: StoreDialect, options: ContextOptions = {}): Promise<AppContext> {
  const clock = options.clock ?? systemClock;
  const now = clock.now().toISOString();
  const db = store.kysely;
  const secretHex = await seedSetting(db, SETTING_SERVER_SECRET, randomBytes(32).toString('hex'), now);
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
    serverSecret: Buffer.from(secretHex, 'hex'),
    mode: options.mode ?? 'single-admin',
    leaseMs: options.leaseMs ?? 60_000,
    // set just below: the refresher reads through the context it belongs to
    hierarchies: undefined as unknown as HierarchyRefresher,
  };
  ctx.hierarchies = new HierarchyRefresher(ctx);
  return ctx;
}

/** Registers a fleet key the operator supplied (env or file) if the store does not know it yet. */
export async function registerFleetKey(ctx: AppContext, token: string, label: string): Promise<number> {
  const db = ctx.store.kysely;
  const existing = await findTokenByHash(db, hashToken(token));
  if (existing) return existing.id;
  return registerToken(db, token, { kind: 'fleet', label }, ctx.clock.now().toISOString());
}

export async function adminUserKey(ctx: AppContext): Promise<string | null> {
  return getSetting(ctx.store.kysely, SETTING_ADMIN_USER);
}
