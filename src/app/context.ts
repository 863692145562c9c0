import { randomBytes, randomFillSync, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Transaction } from 'kysely';
import type { Database } from '../store/database.js';
import type { StoreDialect } from '../store/dialect/dialect.js';
import { ActorCache } from '../store/actors-repo.js';
import type { LiveHub } from './live-hub.js';
import type { HierarchyHub } from './lineage/hierarchy-hub.js';

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export interface IdSource {
  uuid(): string;
  bytes(n: number): Buffer;
}

/**
 * Small random values (a record's 32-byte digest key: one per event) are cut from a pool filled
 * 4 KiB at a time, as Node's randomUUID does for its own: one call into the CSPRNG per 4 KiB
 * instead of one per event was 4 % of an agent message's CPU. Every byte is handed out once;
 * each value is copied out, so no two callers share memory.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function pooledRandomBytes(n: number): Buffer {
  if (n > 256) return randomBytes(n);
  if (poolOffset + n > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + n));
  // what was handed out is not kept: a later read of the pool cannot recover it
  pool.fill(0, poolOffset, poolOffset + n);
  poolOffset += n;
  return out;
}

export const randomIds: IdSource = { uuid: () => randomUUID(), bytes: pooledRandomBytes };

export type DeploymentMode = 'single-admin' | 'multi-user';

/** Everything a use case needs; built once per process (or per test). */
export interface AppContext {
  store: StoreDialect;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  actors: ActorCache;
  live: LiveHub;
  /** live refresh of open hierarchy views (docs/concepts.md) */
  hierarchies: HierarchyHub;
  /** the server secret session tokens are derived from; kept outside the store (docs/operations.md) */
  serverSecret: Buffer;
  /** deployment mode, read from the store's settings at start */
  mode: DeploymentMode;
  /** the lease duration of inbox items */
  leaseMs: number;
  /** TEST-ONLY seams; never set in production (nothing in config or env reaches them) */
  seams?: TestSeams;
  /** BENCH-ONLY switches; never set in production (nothing in config or env reaches them) */
  benchOnly?: BenchOnlySwitches;
}

/** Where a use case has read what it is about to change, before it writes anything (or, `hierarchy-subscribe`, before a new viewer is registered). */
export type SeamPoint =
  'archive' | 'lifecycle' | 'patch' | 'create-idempotency' | 'message-send' | 'transcript-append' | 'runtime-child' | 'hierarchy-subscribe';

/**
 * TEST-ONLY: concurrency tests (docs/attribution.md, docs/operations.md) hold callers at a barrier after they have read
 * the session and before they write, so two transactions really overlap. `tx` is the
 * transaction the use case runs in (a test may make the store fail inside it for real).
 */
interface TestSeams {
  afterRead?(point: SeamPoint, sessionId: number | null, tx?: Transaction<Database>): Promise<void>;
  /**
   * TEST-ONLY: runs after everything of the transaction was written, right before COMMIT —
   * where a test makes the commit itself fail (docs/messages.md `outcome-unknown`).
   */
  beforeCommit?(point: SeamPoint, tx: Transaction<Database>): Promise<void>;
}

/**
 * BENCH-ONLY: `bench/audit-bench.ts` measures the cost of chaining by running the same write
 * with and without the audit append. A store written with this switch on has evidence
 * records without log entries: it is for throwaway benchmark databases only.
 */
interface BenchOnlySwitches {
  skipAuditAppend?: boolean;
}

/** Whether an error means the store itself is unreachable (surfaces map it to 503 without importing store/). */
export { isStoreUnavailableError } from '../store/store-errors.js';
