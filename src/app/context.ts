import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { StoreDialect } from '../store/dialect/dialect.js';
import { ActorCache } from '../store/actors-repo.js';
import type { LiveHub } from './live-hub.js';
import type { HierarchyRefresher } from './lineage/hierarchy-refresh.js';

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export interface IdSource {
  uuid(): string;
  bytes(n: number): Buffer;
}
export const randomIds: IdSource = { uuid: () => randomUUID(), bytes: (n) => randomBytes(n) };

export type DeploymentMode = 'single-admin' | 'multi-user';

/** Everything a use case needs; built once per process (or per test). */
export interface AppContext {
  store: StoreDialect;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  actors: ActorCache;
  live: LiveHub;
  /** live refresh of open hierarchy views (spec 02 "Live refresh") */
  hierarchies: HierarchyRefresher;
  /** the server secret session tokens are derived from (a store setting, spec 01) */
  serverSecret: Buffer;
  /** deployment mode, read from the store's settings at start */
  mode: DeploymentMode;
  /** the lease duration of inbox items */
  leaseMs: number;
}

export function nowIso(ctx: Pick<AppContext, 'clock'>): string {
  return ctx.clock.now().toISOString();
}

export { ActorCache };
