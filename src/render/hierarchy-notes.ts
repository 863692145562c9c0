import type { DrawnUnder, Hierarchy, HierarchyNode, WalkBounds } from '../core/hierarchy-types.js';

/**
 * The sentences a hierarchy carries, worded once for every surface (docs/concepts.md, principle 5:
 * every bound is stated, with its numbers, and says where the rest can be read).
 */
function truncationNote(bounds: WalkBounds): string {
  return (
    `Showing at most ${bounds.maxNodes} sessions, ${bounds.maxDepth} levels from the highest ancestor reached. This tree is larger. ` +
    'Open a session further down to see its part of the tree, or list the children of any session with ' +
    '`warrant sessions list --parent <ref>` (GET /api/v1/sessions?parent=<ref>).'
  );
}

export function hierarchyNote(h: Hierarchy): string | null {
  return h.truncated ? truncationNote(h.bounds) : null;
}

/** Why a line is not under its spawn parent; indentation alone would claim a spawn edge. */
export function drawnUnderText(d: DrawnUnder): string {
  if (d.reason === 'ceiling') return 'placed by the node ceiling, not under its parent';
  switch (d.spawnParent.kind) {
    case 'in-tree':
      return `shown under uncle #${d.uncleId}, not its spawn parent #${d.spawnParent.id}`;
    case 'outside':
      return `shown under uncle #${d.uncleId}; its spawn parent is not in this tree`;
    case 'none':
      return `shown under uncle #${d.uncleId}; it has no spawn parent`;
  }
}

/** Seniors that exist but are not drawn as chips here (REST and MCP list and remove them). */
export function hiddenSeniorsText(n: Pick<HierarchyNode, 'hiddenSeniors'>): string | null {
  if (n.hiddenSeniors === 0) return null;
  return `${n.hiddenSeniors} more senior${n.hiddenSeniors === 1 ? '' : 's'} not shown`;
}
