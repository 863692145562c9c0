import type { Provenance } from '../app/lineage/provenance.js';
import { serializeHierarchy } from './hierarchy-json.js';
import { renderHierarchyOutline } from './hierarchy-outline.js';
import { sanitizeInline } from './sanitize.js';

/**
 * The one provenance renderer (spec 03): MCP, the CLI and REST markdown print this, so they
 * cannot drift. Sections in order; the human-message section slots in after the hierarchy.
 */
export const provenanceSections: ((p: Provenance) => string | null)[] = [(p) => ['## Session hierarchy', '', renderHierarchyOutline(p.hierarchy)].join('\n')];

export function renderProvenance(p: Provenance): string {
  const title = p.session.title ? sanitizeInline(p.session.title) : '(untitled)';
  const sections = provenanceSections.map((render) => render(p)).filter((s): s is string => s !== null);
  return [`# Provenance of #${p.session.id} ${title}`, ...sections].join('\n\n');
}

/** The JSON form: `session_hierarchy` in the shape of spec 02 (the same key as the session payload). */
export function serializeProvenance(p: Provenance): Record<string, unknown> {
  return { session_id: p.session.id, session_uid: p.session.uid, session_hierarchy: serializeHierarchy(p.hierarchy) };
}
