import { isActive, type SessionStatus } from './lifecycle.js';

interface CascadeNode {
  id: number;
  parentId: number | null; // spawn parent within the subtree (null for the requested root)
  status: SessionStatus;
}

export type SkipReason = 'active' | 'active-descendant';

interface CascadePlan {
  /** bottom-up: every child before its parent */
  archive: number[];
  skipped: { id: number; reason: SkipReason }[];
}

/**
 * docs/concepts.md: down the spawn subtree, bottom-up; an active session is skipped,
 * and a session is never archived while a descendant under it stays active. Sessions already
 * archived appear in neither list.
 * @example planArchiveCascade(1, [{id:1,parentId:null,status:'stopped'},{id:2,parentId:1,status:'running'}])
 *   // {archive: [], skipped: [{id:2,reason:'active'},{id:1,reason:'active-descendant'}]}
 */
export function planArchiveCascade(rootId: number, nodes: readonly CascadeNode[]): CascadePlan {
  const children = new Map<number, number[]>();
  const byId = new Map<number, CascadeNode>();
  for (const n of nodes) {
    byId.set(n.id, n);
    if (n.parentId !== null && n.id !== rootId) {
      const list = children.get(n.parentId) ?? [];
      list.push(n.id);
      children.set(n.parentId, list);
    }
  }
  const plan: CascadePlan = { archive: [], skipped: [] };
  const seen = new Set<number>();
  // Returns whether something at or below `id` stays active. Post-order = bottom-up.
  const visit = (id: number): boolean => {
    if (seen.has(id)) return false; // a visited set keeps a corrupt cycle finite
    seen.add(id);
    const node = byId.get(id);
    if (!node) return false;
    let activeBelow = false;
    for (const child of [...(children.get(id) ?? [])].sort((a, b) => a - b)) {
      if (visit(child)) activeBelow = true;
    }
    if (isActive(node.status)) {
      plan.skipped.push({ id, reason: 'active' });
      return true;
    }
    if (activeBelow) {
      if (node.status !== 'archived') plan.skipped.push({ id, reason: 'active-descendant' });
      return true;
    }
    if (node.status !== 'archived') plan.archive.push(id);
    return false;
  };
  visit(rootId);
  return plan;
}
