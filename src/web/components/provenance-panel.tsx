import type { Provenance } from '../../app/lineage/index.js';
import { MAX_NODES } from '../../core/hierarchy-types.js';

/** The SSE event that carries this panel's fresh HTML (src/web/live-panels.tsx). */
export function panelEvent(sessionId: number): string {
  return `panel-${sessionId}`;
}
import { HierarchyTree } from './hierarchy-tree.js';
import { HumanRecordSection } from './human-record-panel.js';

/**
 * The session page's hierarchy and human-message panel (docs/api.md). It is
 * deferred: the page paints at once with `PanelSkeleton`, sized like the tree it stands for,
 * which loads `/sessions/:id/provenance_panel` and is replaced by `ProvenancePanel`. The
 * skeleton carries no id, so a live refresh (which targets #provenance-panel) can never
 * mistake it for the real panel.
 *
 * Live refresh: the page's stream watches this panel (`?panel=<id>`) and sends it whole, as
 * `panel-<id>` events htmx swaps in (`sse-swap`), rendered from the shared hierarchy refresh —
 * one walk per change for every viewer (src/web/live-panels.tsx). After a `resync` it re-fetches.
 * A `panel-<id>` event that arrives while the skeleton shows is held by the page and handed to the
 * panel once it lands, since it may be newer than the skeleton's answer (client/shared/held-panels.ts).
 *
 * It draws what `get_session_provenance` returns — the hierarchy walk and the human-message
 * record over its node set — so the page and the agents' tools cannot disagree.
 */

/** Human-message entries on the panel's first page; older ones load on demand. */
export const PANEL_MESSAGE_PAGE = 20;

/**
 * The skeleton's rows: the tree the page expects (its parent, itself and its direct
 * children, a cheap count) — the real walk is what the deferral avoids.
 */
export function panelRowCount(shape: { hasParent: boolean; children: number }): number {
  return Math.min((shape.hasParent ? 1 : 0) + 1 + shape.children, MAX_NODES + 1);
}

export function ProvenancePanel(props: { provenance: Provenance }) {
  const p = props.provenance;
  const id = p.session.id;
  return (
    <section
      id="provenance-panel"
      class="card panel"
      aria-labelledby="hierarchy-heading"
      data-node-count={String(p.hierarchy.nodes.length)}
      sse-swap={panelEvent(id)}
      hx-get={`/sessions/${id}/provenance_panel`}
      hx-trigger="sse:resync delay:200ms"
      hx-swap="outerHTML"
    >
      <h2 id="hierarchy-heading">
        Hierarchy <span class="hint">{p.hierarchy.nodes.length === 1 ? 'one session' : `${p.hierarchy.nodes.length} sessions`}</span>
      </h2>
      <div id="panel-result" role="status" aria-live="polite"></div>
      <HierarchyTree hierarchy={p.hierarchy} />
      <div class="human-section">
        <HumanRecordSection record={p.humanMessages} />
      </div>
    </section>
  );
}

/** Painted with the page; replaced by the panel when it arrives. No id on purpose (see above). */
export function PanelSkeleton(props: { sessionId: number; rows: number }) {
  const rows = Array.from({ length: Math.max(1, props.rows) }, (_, i) => i);
  return (
    <section
      class="card panel panel-skeleton"
      aria-busy="true"
      aria-label="Hierarchy (loading)"
      hx-get={`/sessions/${props.sessionId}/provenance_panel`}
      hx-trigger="load"
      hx-swap="outerHTML"
    >
      <h2>Hierarchy</h2>
      <ol class="tree" aria-hidden="true">
        {rows.map(() => (
          <li class="node skeleton">
            <span class="skeleton-bar" />
          </li>
        ))}
      </ol>
      <div class="human-section">
        <h3>Human messages</h3>
        <p class="hint">Loading the hierarchy and the human messages recorded in it…</p>
      </div>
    </section>
  );
}
