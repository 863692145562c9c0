/**
 * Lineage: the hierarchy, provenance, uncle edges and the hierarchy's live refresh.
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { HIERARCHY_CHANGED, INTERNAL_LIVE_TYPES, walkCounts } from './hierarchy-refresh.js';
export type { HierarchySubscription } from './hierarchy-hub.js';
export { hierarchyOf } from './hierarchy.js';
export { getProvenance } from './provenance.js';
export type { Provenance } from './provenance.js';
export { removeUncleEdge } from './uncle-edges.js';
