import { walkHierarchy } from '../../core/hierarchy-walk.js';
import type { OwnerFilter, WalkBounds, WalkOutcome } from '../../core/hierarchy-types.js';
import { loadHierarchyRows, type HierarchyRow } from '../../store/lineage-repo.js';
import { lineageBucketOf, lineageVersionsOf } from '../../store/lineage-versions-repo.js';
import type { AppContext } from '../context.js';
import { runWalkOnStore } from './walk-driver.js';

/** Cached walks one process keeps (most recently stored last); past it the oldest go. */
const CACHED_WALKS = 2000;

interface CachedWalk {
  outcome: WalkOutcome<HierarchyRow>;
  /** the version of each bucket the walk's footprint falls in, as of the walk's snapshot */
  versions: Map<number, number>;
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
 * The walk of `sessionId` under `owners`, served from the cache when one primary-key read of
 * its version buckets proves nothing it read has changed since — on every node, since the
 * versions live in the store and every change bumps them in its own transaction
 * (docs/design/lineage.md "Cached walks"). Otherwise it walks on one snapshot and reads the
 * versions in that same snapshot, so an entry never claims a version newer than its data.
 * Null when the session is gone.
 */
export async function cachedWalk(ctx: AppContext, sessionId: number, owners: OwnerFilter, bounds: WalkBounds): Promise<WalkOutcome<HierarchyRow> | null> {
  const cache = cacheOf(ctx);
  const key = keyOf(sessionId, owners, bounds);
  const entry = cache.entries.get(key);
  if (entry) {
    const now = await lineageVersionsOf(ctx.store.kysely, ctx.store, [...entry.versions.keys()]);
    if ([...entry.versions].every(([bucket, v]) => now.get(bucket) === v)) {
      cache.stats.hits++;
      cache.entries.delete(key);
      cache.entries.set(key, entry); // most recently used last
      return entry.outcome;
    }
    cache.stats.stale++;
    cache.entries.delete(key);
  }
  cache.stats.misses++;
  const fresh = await ctx.store.readSnapshot(async (db) => {
    // the session row is read again inside the snapshot: the walk starts from the same moment
    const [current] = await loadHierarchyRows(db, ctx.store, [sessionId]);
    if (!current) return null;
    const outcome = await runWalkOnStore(walkHierarchy(current, owners, bounds), db, ctx.store);
    const buckets = [...new Set([...outcome.footprint].map(lineageBucketOf))];
    return { outcome, versions: await lineageVersionsOf(db, ctx.store, buckets) };
  });
  if (!fresh) return null;
  cache.entries.delete(key);
  cache.entries.set(key, fresh);
  if (cache.entries.size > CACHED_WALKS) cache.entries.delete(cache.entries.keys().next().value!);
  return fresh.outcome;
}
