import { walkHierarchy } from '../../core/hierarchy-walk.js';
import { LINEAGE_CHANGED, lineageChangeOf } from '../../core/lineage-change.js';
import { DEFAULT_BOUNDS, sameHierarchy, type Hierarchy, type OwnerFilter } from '../../core/hierarchy-types.js';
import { loadHierarchyRows } from '../../store/lineage-repo.js';
import type { LiveEventRecord } from '../../store/live-repo.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { hierarchiesFromOutcomes, ownerFilterOf, resolveReadable, walkSession } from './hierarchy.js';
import type { HierarchyChange, HierarchyHub, HierarchySubscription, HierarchyUpdate } from './hierarchy-hub.js';
import { LineageLoader, runWalks, walkCounts } from './walk-driver.js';

export { walkCounts };

/** The SSE event of docs/api.md: the sessions whose hierarchy view changed. */
export const HIERARCHY_CHANGED = 'hierarchy_changed';
/** Live event types that only wake other parts of Warrant. */
export const INTERNAL_LIVE_TYPES: ReadonlySet<string> = new Set([LINEAGE_CHANGED]);

interface Viewer {
  viewerId: number;
  owners: OwnerFilter;
  listener: (update: HierarchyUpdate) => void;
  /** the view last sent */
  last: Hierarchy;
  /** every session its walk read (its rendered nodes included): only a change there can alter it */
  footprint: ReadonlySet<number>;
}

/**
 * Live refresh of hierarchy views (docs/concepts.md, docs/api.md SSE): reacts to
 * committed live events off the request path, coalesces them, loads the affected part of
 * the graph once per batch and recomputes every open view from it in memory with the same
 * walk — never one store walk per viewer. Subscribers are the SSE stream and (later) the
 * web UI's hierarchy panel.
 */
export class HierarchyRefresher implements HierarchyHub {
  private readonly viewers = new Set<Viewer>();
  private readonly broadcastListeners = new Set<(change: HierarchyChange) => void>();
  private pending = { changed: new Set<number>(), deleted: new Map<number, number | null>() };
  private running: Promise<void> | null = null;
  private again = false;
  private unsubscribeHub: (() => void) | null = null;
  /** batches run and queries they issued, for tests and the bench */
  readonly stats = { batches: 0, walkQueries: 0, rowsRead: 0, viewsRecomputed: 0 };

  constructor(private readonly ctx: AppContext) {}

  start(): void {
    if (this.unsubscribeHub) return;
    this.unsubscribeHub = this.ctx.live.subscribe((event) => this.onLiveEvent(event));
  }

  async stop(): Promise<void> {
    this.unsubscribeHub?.();
    this.unsubscribeHub = null;
    while (this.running) await this.running;
  }

  /**
   * Subscribes to one session's hierarchy as `caller` sees it: the current view now, then
   * the recomputed view each time it changes (null once the session is deleted). Throws the
   * usual 404 for a session the caller cannot see.
   */
  async subscribe(viewer: number | string, caller: Caller, listener: (update: HierarchyUpdate) => void): Promise<HierarchySubscription> {
    const { session, visibility } = await resolveReadable(this.ctx, caller, viewer);
    const owners = ownerFilterOf(visibility);
    const { hierarchy, outcome } = await walkSession(this.ctx, session, owners);
    const entry: Viewer = { viewerId: session.id, owners, listener, last: hierarchy, footprint: outcome.footprint };
    this.viewers.add(entry);
    return { initial: hierarchy, unsubscribe: () => this.viewers.delete(entry) };
  }

  /** Every batch of changes, as the ids whose hierarchy view changed (the broadcast SSE form). */
  onChange(listener: (change: HierarchyChange) => void): () => void {
    this.broadcastListeners.add(listener);
    return () => this.broadcastListeners.delete(listener);
  }

  get viewerCount(): number {
    return this.viewers.size;
  }

  /** Resolves once every committed change so far has been refreshed (tests, shutdown). */
  async settle(): Promise<void> {
    await this.ctx.live.settle();
    while (this.running) await this.running;
  }

  private onLiveEvent(event: LiveEventRecord): void {
    const { changed, deleted } = lineageChangeOf(event.type, event.payload);
    if (changed.length === 0 && deleted.length === 0) return;
    for (const id of changed) this.pending.changed.add(id);
    for (const id of deleted) this.pending.deleted.set(id, event.ownerUserId);
    this.schedule();
  }

  private schedule(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.refresh()
      .catch((error) => this.ctx.logger.warn({ err: error }, 'hierarchy refresh failed'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
  }

  /** One coalesced batch: every change dispatched before it starts is handled together. */
  private async refresh(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const { changed, deleted } = this.pending;
    this.pending = { changed: new Set(), deleted: new Map() };
    if (changed.size === 0 && deleted.size === 0) return;
    this.stats.batches++;
    const touched = new Set<number>([...changed, ...deleted.keys()]);

    const affected = [...this.viewers].filter((v) => [...touched].some((id) => v.footprint.has(id)));
    const broadcastIds = this.broadcastListeners.size > 0 ? [...changed].filter((id) => !deleted.has(id)) : [];
    if (affected.length === 0 && broadcastIds.length === 0 && deleted.size === 0) return;

    const db = this.ctx.store.kysely;
    const loader = new LineageLoader(db, this.ctx.store);
    const starts = [...new Set([...affected.map((v) => v.viewerId), ...broadcastIds])];
    const rows = new Map((await loadHierarchyRows(db, this.ctx.store, starts)).map((r) => [r.id, r]));
    // one walk per distinct (viewer, visibility); all of them answered by the one loader
    const keyOf = (id: number, owners: OwnerFilter) => `${id}|${owners === 'all' ? '*' : JSON.stringify(owners)}`;
    const walks = new Map<string, { id: number; owners: OwnerFilter }>();
    for (const v of affected) if (rows.has(v.viewerId)) walks.set(keyOf(v.viewerId, v.owners), { id: v.viewerId, owners: v.owners });
    const broadcastKeys = new Set<string>();
    for (const id of broadcastIds) {
      if (!rows.has(id)) continue;
      walks.set(keyOf(id, 'all'), { id, owners: 'all' });
      broadcastKeys.add(keyOf(id, 'all'));
    }
    const keys = [...walks.keys()];
    const outcomes = await runWalks(
      keys.map((k) => walkHierarchy(rows.get(walks.get(k)!.id)!, walks.get(k)!.owners, DEFAULT_BOUNDS)),
      (requests) => loader.fulfill(requests),
    );
    const hierarchies = await hierarchiesFromOutcomes(db, outcomes, DEFAULT_BOUNDS);
    this.stats.walkQueries += loader.stats.queries;
    this.stats.rowsRead += loader.stats.rows;
    this.stats.viewsRecomputed += outcomes.length;
    const byKey = new Map(keys.map((k, i) => [k, { hierarchy: hierarchies[i]!, outcome: outcomes[i]! }]));

    for (const v of affected) {
      const result = byKey.get(keyOf(v.viewerId, v.owners));
      if (!result) {
        // the viewed session is gone
        this.viewers.delete(v);
        this.notify(v, { viewerId: v.viewerId, hierarchy: null });
        continue;
      }
      v.footprint = result.outcome.footprint;
      if (sameHierarchy(result.hierarchy, v.last)) continue;
      v.last = result.hierarchy;
      this.notify(v, { viewerId: v.viewerId, hierarchy: result.hierarchy });
    }

    if (this.broadcastListeners.size > 0) {
      const owners = new Map<number, number | null>(deleted);
      for (const k of broadcastKeys) for (const n of byKey.get(k)!.outcome.nodes) owners.set(n.row.id, n.row.ownerUserId);
      const change: HierarchyChange = { sessionIds: [...owners.keys()].sort((a, b) => a - b), owners };
      if (change.sessionIds.length === 0) return;
      for (const listener of this.broadcastListeners) {
        try {
          listener(change);
        } catch (error) {
          this.ctx.logger.warn({ err: error }, 'hierarchy change listener failed');
        }
      }
    }
  }

  private notify(v: Viewer, update: HierarchyUpdate): void {
    try {
      v.listener(update);
    } catch (error) {
      this.ctx.logger.warn({ err: error }, 'hierarchy subscriber failed');
    }
  }
}
