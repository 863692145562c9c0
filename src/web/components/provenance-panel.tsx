import type { SessionView } from '../../app/views.js';
import { AgentRootPill, Basis, GenesisPill, Status, sessionTitle } from './format.js';

/**
 * The session page's hierarchy and human-message panel (spec 06 "Session detail"). It is
 * deferred: the page paints at once with `PanelSkeleton`, sized like the tree it stands
 * for, which loads `/sessions/:id/provenance_panel` and is replaced by `ProvenancePanel`.
 * The skeleton carries no id, so a live refresh (which targets #provenance-panel) can
 * never mistake it for the real panel.
 *
 * What this build draws is what the store records today: the spawn edge of the session
 * (its lineage parent) and its direct spawn children. The full hierarchy walk (uncle edges,
 * placements, "also senior" chips) and the human-message record replace `SpawnLineageTree`
 * and `HumanMessagesPlaceholder` when they land; the deferral, skeleton and live-refresh
 * wiring stay.
 */
export const PANEL_CHILD_LIMIT = 10;

export interface SpawnLineage {
  session: SessionView;
  /** the lineage parent, when there is one and the viewer may see it */
  parent: SessionView | null;
  /** a lineage parent is recorded but not visible to this viewer */
  parentHidden: boolean;
  children: SessionView[];
  /** more spawn children exist than are drawn */
  moreChildren: boolean;
}

/** The number of tree rows `SpawnLineageTree` will draw: the skeleton draws exactly as many. */
export function panelRowCount(shape: { hasParent: boolean; children: number; moreChildren: boolean }): number {
  return (shape.hasParent ? 1 : 0) + 1 + Math.min(shape.children, PANEL_CHILD_LIMIT) + (shape.moreChildren ? 1 : 0);
}

const HIERARCHY_NOTE = 'Spawn edges only: the session’s recorded parent and its direct children. Uncle edges and the full hierarchy are not drawn in this panel yet.';

function HumanMessagesPlaceholder() {
  return (
    <>
      <h3>Human messages</h3>
      <p class="notice warn">This build does not show human messages here yet. Their absence in this panel says nothing about whether a human asked for this session.</p>
    </>
  );
}

function NodeRow(props: { session: SessionView; depth: number; current?: boolean; note?: unknown }) {
  const s = props.session;
  return (
    <li class={`node depth-${props.depth}${props.current ? ' current' : ''}`} data-node-id={String(s.id)} {...(props.current ? { 'aria-current': 'page' } : {})}>
      <AgentRootPill agentRoot={s.agentRoot} />
      {props.current ? <span class="node-title">{sessionTitle(s.title)}</span> : <a class="node-title" href={`/sessions/${s.id}`}>{sessionTitle(s.title)}</a>}
      <span class="mono">
        #{s.id} · <Status status={s.status} />
      </span>
      <GenesisPill genesis={s.genesis} schedulingClass={s.schedulingClass} />
      {props.note ? <span class="node-note">{props.note}</span> : null}
    </li>
  );
}

function SpawnLineageTree(props: { data: SpawnLineage }) {
  const { session: s, parent, parentHidden, children, moreChildren } = props.data;
  const hasParent = parent !== null || parentHidden;
  const selfDepth = hasParent ? 1 : 0;
  return (
    <ol class="tree" aria-label="Spawn lineage">
      {parent && (
        <NodeRow
          session={parent}
          depth={0}
          note={
            <>
              spawned this session <Basis basis={s.parentBasis} />
            </>
          }
        />
      )}
      {!parent && parentHidden && (
        <li class="node depth-0">
          <span class="node-note">
            Parent #{s.lineageParentId} is recorded but not visible to you. <Basis basis={s.parentBasis} />
          </span>
        </li>
      )}
      <NodeRow session={s} depth={selfDepth} current note="← this session" />
      {children.slice(0, PANEL_CHILD_LIMIT).map((c) => (
        <NodeRow
          session={c}
          depth={selfDepth + 1}
          note={
            <>
              spawned by this session <Basis basis={c.parentBasis} />
            </>
          }
        />
      ))}
      {moreChildren && (
        <li class={`node depth-${selfDepth + 1}`}>
          <span class="node-note">
            More than {PANEL_CHILD_LIMIT} children: <a href={`/?status=all&parent=${s.id}`}>list them all</a>.
          </span>
        </li>
      )}
    </ol>
  );
}

/** The ids whose change can alter this panel: it, its parent and its children (live refresh). */
function watchedIds(data: SpawnLineage): string {
  const ids = [data.session.id, ...(data.session.lineageParentId !== null ? [data.session.lineageParentId] : []), ...data.children.map((c) => c.id)];
  return ids.join(' ');
}

export function ProvenancePanel(props: { data: SpawnLineage }) {
  const id = props.data.session.id;
  return (
    <section
      id="provenance-panel"
      class="card panel"
      aria-labelledby="hierarchy-heading"
      data-watch-sessions={watchedIds(props.data)}
      data-watch-children-of={String(id)}
      hx-get={`/sessions/${id}/provenance_panel`}
      hx-trigger="warrant:watched delay:200ms"
      hx-swap="outerHTML"
    >
      <h2 id="hierarchy-heading">Hierarchy</h2>
      <SpawnLineageTree data={props.data} />
      <p class="hint">{HIERARCHY_NOTE}</p>
      <HumanMessagesPlaceholder />
    </section>
  );
}

/** Painted with the page; replaced by the panel when it arrives. No id on purpose (see above). */
export function PanelSkeleton(props: { sessionId: number; rows: number }) {
  const rows = Array.from({ length: Math.max(1, props.rows) }, (_, i) => i);
  return (
    <section class="card panel panel-skeleton" aria-busy="true" aria-label="Hierarchy (loading)" hx-get={`/sessions/${props.sessionId}/provenance_panel`} hx-trigger="load" hx-swap="outerHTML">
      <h2>Hierarchy</h2>
      <ol class="tree" aria-hidden="true">
        {rows.map(() => (
          <li class="node skeleton">
            <span class="skeleton-bar" />
          </li>
        ))}
      </ol>
      <p class="hint">{HIERARCHY_NOTE}</p>
      <HumanMessagesPlaceholder />
    </section>
  );
}
