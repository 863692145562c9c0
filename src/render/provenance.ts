import type { Provenance } from '../app/lineage/provenance.js';
import { serializeHierarchy } from './hierarchy-json.js';
import { renderHierarchyOutline } from './hierarchy-outline.js';
import { humanRecordNotes, renderHumanRecord } from './human-messages-markdown.js';
import { hierarchyNote } from './hierarchy-notes.js';
import { serializeHumanRecord } from './human-messages-json.js';
import { sanitizeInline } from './sanitize.js';

/**
 * The one provenance renderer (docs/human-messages.md): MCP, the CLI and REST markdown print this, so they
 * cannot drift. Two sections: the session hierarchy, then the human messages.
 */
export function renderProvenance(p: Provenance, pagingHint: (cursor: string) => string = (c) => `pass cursor=${c}`): string {
  const title = p.session.title ? sanitizeInline(p.session.title) : '(untitled)';
  return [
    `# Provenance of #${p.session.id} ${title}`,
    ['## Session hierarchy', '', renderHierarchyOutline(p.hierarchy)].join('\n'),
    renderHumanRecord(p.humanMessages, pagingHint),
  ].join('\n\n');
}

/** The JSON form: `session_hierarchy` in the shape of docs/concepts.md, and the record beside it. */
export function serializeProvenance(p: Provenance) {
  return {
    session_id: p.session.id,
    session_uid: p.session.uid,
    session_hierarchy: serializeHierarchy(p.hierarchy),
    human_messages: serializeHumanRecord(p.humanMessages),
  };
}

/** The sentences a structured result carries (MCP `notes`): the tree's cut, then the record's. */
export function provenanceNotes(p: Pick<Provenance, 'hierarchy' | 'humanMessages'>, pagingHint: (cursor: string) => string): string[] {
  const cut = hierarchyNote(p.hierarchy);
  return [...(cut ? [cut] : []), ...humanRecordNotes(p.humanMessages, pagingHint)];
}
