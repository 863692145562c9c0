import type { Hierarchy } from '../../core/hierarchy-types.js';
import type { Caller } from '../caller.js';

/**
 * The live hierarchy refresh as the app context holds it (app/lineage/hierarchy-refresh.ts
 * implements it). Declared apart from the implementation so the context does not import
 * the walk, which imports the context.
 */
export interface HierarchyHub {
  readonly stats: { batches: number; walkQueries: number; rowsRead: number; viewsRecomputed: number; viewsReused: number; viewsDerived: number };
  /** how many viewers are subscribed (tests, metrics) */
  readonly viewerCount: number;
  start(): void;
  stop(): Promise<void>;
  subscribe(viewer: number | string, caller: Caller, listener: (update: HierarchyUpdate) => void): Promise<HierarchySubscription>;
  onChange(listener: (change: HierarchyChange) => void): () => void;
  /** Resolves once every committed change so far has been refreshed (tests, shutdown). */
  settle(): Promise<void>;
}

/** What a subscriber is told: the recomputed view, or null when the viewed session is gone. */
export interface HierarchyUpdate {
  viewerId: number;
  hierarchy: Hierarchy | null;
}

export interface HierarchySubscription {
  initial: Hierarchy;
  unsubscribe(): void;
}

/** The broadcast form of `hierarchy_changed`, with each id's owner for per-subscriber filtering. */
export interface HierarchyChange {
  sessionIds: number[];
  owners: ReadonlyMap<number, number | null>;
}
