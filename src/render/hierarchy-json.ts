import type { Genesis } from '../core/genesis.js';
import type { SessionStatus } from '../core/lifecycle.js';
import type { DrawnUnder, Hierarchy, HierarchyNode } from '../core/hierarchy-types.js';
import { drawnUnderText, hierarchyNote } from './hierarchy-notes.js';

/** The wire form of "drawn under": the structure, and the sentence every surface shows. */
function serializeDrawnUnder(d: DrawnUnder | null) {
  if (!d) return null;
  if (d.reason === 'ceiling') return { reason: 'ceiling' as const, uncle_id: null, spawn_parent: null, spawn_parent_id: null, text: drawnUnderText(d) };
  return {
    reason: 'uncle' as const,
    uncle_id: d.uncleId,
    spawn_parent: d.spawnParent.kind,
    spawn_parent_id: d.spawnParent.kind === 'in-tree' ? d.spawnParent.id : null,
    text: drawnUnderText(d),
  };
}

function serializeHierarchyNode(n: HierarchyNode) {
  return {
    id: n.id,
    uid: n.uid,
    title: n.title,
    // the walk's rows carry these as the store's strings (its columns are checked); the wire names the values
    status: n.status as SessionStatus,
    owner: n.owner,
    agent_root: n.agentRoot,
    genesis: n.genesis as Genesis,
    scheduling_class: n.schedulingClass as 'priority' | 'spot',
    depth: n.depth,
    render_parent_id: n.renderParentId,
    spawn_edge: n.spawnEdge,
    placement: n.placement,
    also_senior: n.alsoSenior.map((s) => ({ id: s.id, basis: s.basis })),
    hidden_seniors: n.hiddenSeniors,
    is_current: n.isCurrent,
    drawn_under: serializeDrawnUnder(n.drawnUnder),
  };
}

/** docs/concepts.md: `{origin_id, roots, truncated, note, nodes}`, nodes in output order — one shape everywhere. */
export function serializeHierarchy(h: Hierarchy) {
  return {
    origin_id: h.originId,
    roots: h.roots,
    truncated: h.truncated,
    note: hierarchyNote(h),
    nodes: h.nodes.map(serializeHierarchyNode),
  };
}
