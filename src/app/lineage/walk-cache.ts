import { walkHierarchy } from '../../core/hierarchy-walk.js';
import type { OwnerFilter, WalkBounds, WalkOutcome } from '../../core/hierarchy-types.js';
import { loadHierarchyRows, type HierarchyRow } from '../../store/lineage-repo.js';
import { lineageBucketOf, lineageVersionSum } from '../../store/lineage-versions-repo.js';
import type { Executor } from '../../store/dialect/dialect.js';
import type { AppContext } from '../context.js';
import { runWalkOnStore } from './walk-driver.js';

/** Cached walks one process keeps (most recently stored last); past it the oldest go. */
const CACHED_WALKS = 2000;

interface CachedWalk {
  outcome: WalkOutcome<HierarchyRow>;
  /** the buckets the walk's footprint falls in, ascending */
  buckets: number[];
  /**
   * the sum of their versions as of the walk's snapshot or earlier; null when it is unknown
   * (the entry never matches, so the next read walks again)
   */
  versionSum: number | null;
}

/** Reads that were answered from the cache, that walked, and that found their entry out of date. */
interface WalkCacheStats {
  hits: number;
  misses: number;
  stale: number;
}

class WalkCache {
  readonly entries = new Map<string, CachedWalk>();
  readonly stats: WalkCacheStats = { hits: 0, misses: 0, stale: 0 };
}

const caches = new WeakMap<AppContext, WalkCache>();

function cacheOf(ctx: AppContext): WalkCache {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new WalkCache()));
  return cache;
}

/** The walk cache's counters for this context (the bench's hit and miss rows). */
export function walkCacheStats(ctx: AppContext): WalkCacheStats {
  return cacheOf(ctx).stats;
}

function keyOf(sessionId: number, owners: OwnerFilter, bounds: WalkBounds): string {
  const o = owners === 'all' ? 'all' : [...owners].sort((a, b) => (a ?? -1) - (b ?? -1)).join(',');
  return `${sessionId}|${o}|${bounds.maxDepth}|${bounds.maxNodes}`;
}

/**
 * The walk of `sessionId` under `owners`, served from the cache when one read of its version
 * buckets proves nothing it read has changed since — on every node, since the versions live
 * in the store and every change bumps them in its own transaction (docs/design/lineage.md
 * "Cached walks"). The read is their sum: versions only grow, so an equal sum over the same
 * buckets means none moved. An entry never claims a sum newer than its data: after a change,
 * the sum that found the entry out of date was read before the walk that replaces it, so it
 * can only be older than what the walk read (the next read then misses, never serves stale);
 * a session walked for the first time is walked on one snapshot with its sum read in that
 * snapshot. Null when the session is gone.
 */
export async function cachedWalk(ctx: AppContext, sessionId: number, owners: OwnerFilter, bounds: WalkBounds): Promise<WalkOutcome<HierarchyRow> | null> {
  const cache = cacheOf(ctx);
  const key = keyOf(sessionId, owners, bounds);
  const entry = cache.entries.get(key);
  if (!entry) {
    cache.stats.misses++;
    const fresh = await ctx.store.readSnapshot(async (db) => {
      const outcome = await walkFrom(ctx, db, sessionId, owners, bounds);
      if (!outcome) return null;
      const buckets = bucketsOf(outcome);
      return { outcome, buckets, versionSum: await lineageVersionSum(db, ctx.store, buckets) };
    });
    return fresh && remember(cache, key, fresh);
  }
  const now = await lineageVersionSum(ctx.store.kysely, ctx.store, entry.buckets);
  cache.entries.delete(key);
  if (entry.versionSum === now) {
    cache.stats.hits++;
    cache.entries.set(key, entry); // most recently used last
    return entry.outcome;
  }
  cache.stats.stale++;
  cache.stats.misses++;
  // `now` was read before this walk: the row is read again after it, and the walk reads the rest
  const outcome = await walkFrom(ctx, ctx.store.kysely, sessionId, owners, bounds);
  if (!outcome) return null;
  // a footprint over other buckets has no sum read before the walk: it never matches
  const buckets = bucketsOf(outcome);
  const same = buckets.length === entry.buckets.length && buckets.every((b, i) => b === entry.buckets[i]);
  return remember(cache, key, { outcome, buckets, versionSum: same ? now : null });
}

/** The walk of the session as stored now (its row read first), or null when it is gone. */
async function walkFrom(ctx: AppContext, db: Executor, sessionId: number, owners: OwnerFilter, bounds: WalkBounds): Promise<WalkOutcome<HierarchyRow> | null> {
  const [current] = await loadHierarchyRows(db, ctx.store, [sessionId]);
  return current ? runWalkOnStore(walkHierarchy(current, owners, bounds), db, ctx.store) : null;
}

function bucketsOf(outcome: WalkOutcome<HierarchyRow>): number[] {
  return [...new Set([...outcome.footprint].map(lineageBucketOf))].sort((a, b) => a - b);
}

function remember(cache: WalkCache, key: string, entry: CachedWalk): WalkOutcome<HierarchyRow> {
  cache.entries.set(key, entry);
  if (cache.entries.size > CACHED_WALKS) cache.entries.delete(cache.entries.keys().next().value!);
  return entry.outcome;
}
