import type { WriteScope } from '../write-scope.js';

/**
 * A change to the lineage graph, announced inside the transaction that made it. The live
 * hierarchy refresh (spec 02 "Live refresh") registers here to learn which components to
 * recompute after commit; the graph writers never walk hierarchies themselves.
 */
export interface LineageChange {
  kind: 'uncle_linked' | 'uncle_inverted' | 'uncle_removed' | 'parent_changed';
  /** every session whose senior or junior set changed */
  sessionIds: number[];
}

export type LineageChangeHook = (w: WriteScope, change: LineageChange) => Promise<void> | void;
export const lineageChangeHooks: LineageChangeHook[] = [];

export async function announceLineageChange(w: WriteScope, change: LineageChange): Promise<void> {
  for (const hook of lineageChangeHooks) await hook(w, change);
}
