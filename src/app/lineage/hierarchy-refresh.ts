import { walkHierarchy } from '../../core/hierarchy-walk.js';
import { LINEAGE_CHANGED, lineageChangeOf } from '../../core/lineage-change.js';
import { DEFAULT_BOUNDS, sameHierarchy, type Hierarchy, type OwnerFilter, type WalkOutcome } from '../../core/hierarchy-types.js';
import { closedComponentOf, outcomeSeenFrom, outcomeWithNewRows, walkFromStaysWithin, type ClosedComponent } from '../../core/walk-reuse.js';
import { loadHierarchyRows, type HierarchyRow } from '../../store/lineage-repo.js';
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
  /** the walk behind it; its footprint is every session the walk read (its rendered nodes included): only a change there can alter it */
  outcome: WalkOutcome<HierarchyRow>;
}

/**
 * Live refresh of hierarchy views (docs/concepts.md, docs/api.md SSE): reacts to
 * committed live events off the request path, coalesces them, loads the affected part of
 * the graph once per batch and recomputes every open view from it in memory with the same
 * walk — never one store walk per viewer, and one in-memory walk per closed lineage (the
 * other views of it are told from that walk, walk-reuse.ts). Subscribers are the SSE stream and (later) the
 * web UI's hierarchy panel.
 */
export class HierarchyRefresher implements HierarchyHub {
  private readonly viewers = new Set<Viewer>();
  private readonly broadcastListeners = new Set<(change: HierarchyChange) => void>();
  private pending = HierarchyRefresher.nothingPending();
  private running: Promise<void> | null = null;
  private again = false;
  private unsubscribeHub: (() => void) | null = null;
  /** per subscription still walking its first view: the lineage changes dispatched meanwhile */
  private readonly changesDuringFirstWalks = new Set<LiveEventRecord[]>();
  /** new viewers whose first view may miss a change dispatched while it walked: walked again in the next batch */
  private rewalkNext = new Set<Viewer>();
  /** batches run and queries they issued, for tests and the bench */
  readonly stats = { batches: 0, walkQueries: 0, rowsRead: 0, viewsRecomputed: 0, viewsReused: 0, viewsDerived: 0 };

  constructor(private readonly ctx: AppContext) {}

  private static nothingPending() {
    /**
     * `rowsOnly`: every event of the batch changed rows only, no edge (lineageChangeOf);
     * `leads`: each event's first changed session, its junior end
     */
    return { changed: new Set<number>(), deleted: new Map<number, number | null>(), rowsOnly: true, leads: new Set<number>() };
  }

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
    const meanwhile: LiveEventRecord[] = [];
    this.changesDuringFirstWalks.add(meanwhile);
    let entry: Viewer;
    try {
      const { session, visibility } = await resolveReadable(this.ctx, caller, viewer);
      const owners = ownerFilterOf(visibility);
      const { hierarchy, outcome } = await walkSession(this.ctx, session, owners);
      await this.ctx.seams?.afterRead?.('hierarchy-subscribe', session.id);
      entry = { viewerId: session.id, owners, listener, last: hierarchy, outcome };
    } finally {
      this.changesDuringFirstWalks.delete(meanwhile);
    }
    this.viewers.add(entry);
    // A change committed while the first walk read may be missing from it, and its refresh found
    // no such viewer yet: this viewer alone is walked again in the next batch (after this returns,
    // so the caller has the initial view before the update), else its view would stay stale until
    // the next change. The other viewers and the broadcast had that change already.
    const missed = meanwhile.some((event) => {
      const { changed, deleted } = lineageChangeOf(event.type, event.payload);
      return [...changed, ...deleted].some((id) => entry.outcome.footprint.has(id));
    });
    if (missed) {
      this.rewalkNext.add(entry);
      this.schedule();
    }
    return { initial: entry.last, unsubscribe: () => this.viewers.delete(entry) };
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
    const { changed, deleted, rowsOnly } = lineageChangeOf(event.type, event.payload);
    if (changed.length === 0 && deleted.length === 0) return;
    for (const meanwhile of this.changesDuringFirstWalks) meanwhile.push(event);
    if (!rowsOnly) this.pending.rowsOnly = false;
    if (changed.length > 0) this.pending.leads.add(changed[0]!);
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

  /**
   * One coalesced batch: every change dispatched before it starts is handled together. A
   * batch that changed rows only (a title, a status) re-walks no view that shows every
   * touched session with its walk fields unchanged: that view's walk would decide as before,
   * so it is rebuilt from its last outcome with the new rows (walk-reuse.ts).
   */
  private async refresh(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const { changed, deleted, rowsOnly, leads } = this.pending;
    this.pending = HierarchyRefresher.nothingPending();
    // taken like pending: a batch that fails drops its changes and its catch-ups alike (logged in
    // schedule); the viewers keep their last view until the next change touches them
    const rewalk = this.rewalkNext;
    this.rewalkNext = new Set();
    if (changed.size === 0 && deleted.size === 0 && rewalk.size === 0) return;
    this.stats.batches++;
    const touched = new Set<number>([...changed, ...deleted.keys()]);

    const affected = [...this.viewers].filter((v) => rewalk.has(v) || [...touched].some((id) => v.outcome.footprint.has(id)));
    const broadcastIds = this.broadcastListeners.size > 0 ? [...changed].filter((id) => !deleted.has(id)) : [];
    if (affected.length === 0 && broadcastIds.length === 0 && deleted.size === 0) return;

    const db = this.ctx.store.kysely;
    const loader = new LineageLoader(db, this.ctx.store);
    const rows = new Map<number, HierarchyRow>();
    const load = async (ids: Iterable<number>): Promise<void> => {
      const missing = [...new Set(ids)].filter((id) => !rows.has(id));
      if (missing.length === 0) return;
      for (const r of await loadHierarchyRows(db, this.ctx.store, missing)) rows.set(r.id, r);
      this.stats.rowsRead += missing.length;
    };
    // one outcome per distinct (viewer, visibility): reused when the batch allows it, else walked — all walks answered by the one loader
    const ownersKeyOf = (owners: OwnerFilter) => (owners === 'all' ? '*' : JSON.stringify(owners));
    const keyOf = (id: number, owners: OwnerFilter) => `${id}|${ownersKeyOf(owners)}`;
    const reused = new Map<string, WalkOutcome<HierarchyRow>>();
    let toWalk = affected;
    if (rowsOnly && deleted.size === 0) {
      // the touched sessions' new rows (one read) decide which views keep their walk
      await load(changed);
      toWalk = [];
      for (const v of affected) {
        // a view that may miss a change is walked, never rebuilt from itself
        if (rewalk.has(v)) {
          toWalk.push(v);
          continue;
        }
        const key = keyOf(v.viewerId, v.owners);
        if (reused.has(key)) continue;
        const kept = outcomeWithNewRows(v.outcome, changed, rows);
        if (kept) reused.set(key, kept);
        else toWalk.push(v);
      }
    }
    // the start row of every walk still to run
    await load([...toWalk.map((v) => v.viewerId), ...broadcastIds]);
    // the views still to compute, lowest viewer first (nearest the root, as a rule), each with the footprint of its last walk
    const viewerWalks = new Map<string, { id: number; owners: OwnerFilter; before: ReadonlySet<number> }>();
    for (const v of [...toWalk].sort((a, b) => a.viewerId - b.viewerId)) {
      const key = keyOf(v.viewerId, v.owners);
      if (rows.has(v.viewerId) && !reused.has(key) && !viewerWalks.has(key))
        viewerWalks.set(key, { id: v.viewerId, owners: v.owners, before: v.outcome.footprint });
    }
    const walks = new Map<string, { id: number; owners: OwnerFilter }>();
    // the broadcast form: the union of the walks from every changed session. Each event's lead
    // (its junior end) walks with the views; another changed session walks after them, unless a
    // walk already in the union covers its walk (walkFromStaysWithin) — a spawn's parent, the
    // senior end of an uncle edge — so one edge change costs one broadcast walk, not two
    const broadcastKeys = new Set<string>();
    const afterLeads: number[] = [];
    for (const id of broadcastIds) {
      if (!rows.has(id)) continue;
      const key = keyOf(id, 'all');
      if (!leads.has(id) && !reused.has(key)) {
        afterLeads.push(id);
        continue;
      }
      if (!reused.has(key)) walks.set(key, { id, owners: 'all' });
      broadcastKeys.add(key);
    }
    // One walk per lineage and visibility (docs/design/lineage.md): a view is walked in the first
    // round when no walk of that round was in its last footprint (a broadcast lead, another view);
    // the other views are told from a walk of the round whose component is closed
    // (closedComponentOf: then the walk from any of its sessions is that walk with another current
    // session), and the rest walk in the second round, from what the loader already holds.
    const seeds = new Map<string, number[]>();
    const seedOf = (owners: OwnerFilter) => {
      const k = ownersKeyOf(owners);
      if (!seeds.has(k)) seeds.set(k, []);
      return seeds.get(k)!;
    };
    for (const { id } of walks.values()) seedOf('all').push(id);
    for (const [key, w] of viewerWalks) {
      const seeded = seedOf(w.owners);
      if (seeded.some((id) => w.before.has(id))) continue;
      seeded.push(w.id);
      walks.set(key, { id: w.id, owners: w.owners });
    }
    const outcomeOf = new Map(reused);
    let walkedCount = 0;
    const walkAll = async (round: Map<string, { id: number; owners: OwnerFilter }>): Promise<void> => {
      const roundKeys = [...round.keys()];
      const walked = await runWalks(
        roundKeys.map((k) => walkHierarchy(rows.get(round.get(k)!.id)!, round.get(k)!.owners, DEFAULT_BOUNDS)),
        (requests) => loader.fulfill(requests),
        (request) => loader.answerLoaded(request),
      );
      roundKeys.forEach((k, i) => outcomeOf.set(k, walked[i]!));
      walkedCount += walked.length;
    };
    await walkAll(walks);
    const secondRound = new Map<string, { id: number; owners: OwnerFilter }>();
    const components = new Map<string, ClosedComponent<HierarchyRow>[]>();
    let derivedCount = 0;
    for (const [key, w] of viewerWalks) {
      if (outcomeOf.has(key)) continue;
      const ownersKey = ownersKeyOf(w.owners);
      if (!components.has(ownersKey)) {
        const closed: ClosedComponent<HierarchyRow>[] = [];
        for (const [k, { owners }] of walks) {
          const component = ownersKeyOf(owners) === ownersKey ? closedComponentOf(outcomeOf.get(k)!, owners, DEFAULT_BOUNDS.maxDepth) : null;
          if (component) closed.push(component);
        }
        components.set(ownersKey, closed);
      }
      const component = components.get(ownersKey)!.find((c) => c.seniors.has(w.id));
      const told = component ? outcomeSeenFrom(component, w.id) : null;
      if (told) {
        outcomeOf.set(key, told);
        derivedCount++;
      } else secondRound.set(key, { id: w.id, owners: w.owners });
    }
    // the broadcast walks already held (the second round's are not run yet) are what can cover
    const held = [...broadcastKeys].map((k) => outcomeOf.get(k)!);
    for (const id of afterLeads) {
      const key = keyOf(id, 'all');
      const outcome = outcomeOf.get(key);
      if (outcome) held.push(outcome);
      else if (held.some((h) => walkFromStaysWithin(h, id))) continue;
      else secondRound.set(key, { id, owners: 'all' });
      broadcastKeys.add(key);
    }
    await walkAll(secondRound);
    const keys = [...outcomeOf.keys()];
    const outcomes = [...outcomeOf.values()];
    const hierarchies = await hierarchiesFromOutcomes(db, outcomes, DEFAULT_BOUNDS);
    this.stats.walkQueries += loader.stats.queries;
    this.stats.rowsRead += loader.stats.rows;
    this.stats.viewsRecomputed += walkedCount;
    this.stats.viewsReused += reused.size;
    this.stats.viewsDerived += derivedCount;
    const byKey = new Map(keys.map((k, i) => [k, { hierarchy: hierarchies[i]!, outcome: outcomes[i]! }]));

    for (const v of affected) {
      const result = byKey.get(keyOf(v.viewerId, v.owners));
      if (!result) {
        // the viewed session is gone
        this.viewers.delete(v);
        this.notify(v, { viewerId: v.viewerId, hierarchy: null });
        continue;
      }
      v.outcome = result.outcome;
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
