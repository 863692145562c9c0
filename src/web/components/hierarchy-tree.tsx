import type { Hierarchy, HierarchyNode } from '../../core/hierarchy-types.js';
import { drawnUnderText, hiddenSeniorsText, hierarchyNote } from '../../render/hierarchy-notes.js';
import { AgentRootPill, GenesisPill, Status, sessionTitle } from './format.js';

/**
 * The session hierarchy of the provenance panel (docs/api.md): the walk's nodes in
 * their depth-first order, indented by render parent, with every annotation the outline
 * renderer carries (the same `hierarchy-notes` sentences, so the surfaces cannot disagree).
 */

/** The indentation level of each node: one below its render parent (the outline's rule). */
function nodeLevels(h: Hierarchy): Map<number, number> {
  const levels = new Map<number, number>();
  for (const n of h.nodes) levels.set(n.id, n.renderParentId === null ? 0 : (levels.get(n.renderParentId) ?? 0) + 1);
  return levels;
}

const SPAWN_BASIS_TEXT: Record<string, (parent: number) => string> = {
  authenticated: (p) => `spawned by #${p}`,
  delegated: (p) => `spawned by #${p} with a human’s token (delegated)`,
  declared: (p) => `declared a child of #${p} by a fleet caller; nothing verified it`,
  legacy: (p) => `a child of #${p} by the legacy router key`,
  corrected: (p) => `put under #${p} by an operator’s correction`,
};

/** The edge a node is drawn on, with its basis in words; null for a root or a ceiling-placed node. */
function edgeBasisText(n: HierarchyNode): string | null {
  const p = n.renderParentId;
  if (p === null) return null;
  if (n.placement === 'spawn') return (n.parentBasis !== null ? SPAWN_BASIS_TEXT[n.parentBasis] : undefined)?.(p) ?? `spawned by #${p}`;
  if (n.placement === 'uncle') {
    const basis = n.alsoSenior.find((s) => s.id === p)?.basis;
    return basis === 'declared'
      ? `a junior of #${p} by a declared uncle edge; nothing verified it`
      : `a junior of #${p} by an uncle edge, proved with a credential`;
  }
  return null;
}

/** The × on an "also senior" chip: removes exactly that edge after a confirm. */
function RemoveUncleButton(props: { junior: number; uncle: number; viewer: number }) {
  const url = `/sessions/${props.junior}/uncles/${props.uncle}/remove`;
  // Without JS the form GETs a confirm page; with htmx it posts after the browser's confirm
  // (the CSRF token rides in the page's hx-headers, never in a GET's query string).
  return (
    <form
      class="chip-remove"
      method="get"
      action={url}
      hx-post={url}
      hx-confirm={`Remove #${props.uncle} as a senior of #${props.junior}? The edge is deleted and the removal is logged on both timelines.`}
      hx-target="#provenance-panel"
      hx-swap="outerHTML"
    >
      <input type="hidden" name="view" value={String(props.viewer)} />
      <button type="submit" class="chip-x" aria-label={`Remove #${props.uncle} as a senior of #${props.junior}`} title="Remove this uncle edge">
        ×
      </button>
    </form>
  );
}

function NodeRow(props: { node: HierarchyNode; level: number; viewer: number }) {
  const n = props.node;
  const hidden = hiddenSeniorsText(n);
  const edge = edgeBasisText(n);
  return (
    <li
      class={`node depth-${Math.min(props.level, 16)}${n.isCurrent ? ' current' : ''}`}
      data-node-id={String(n.id)}
      data-render-parent={n.renderParentId === null ? '' : String(n.renderParentId)}
      {...(n.isCurrent ? { 'aria-current': 'page' } : {})}
    >
      <AgentRootPill agentRoot={n.agentRoot} />
      {n.isCurrent ? (
        <span class="node-title">{sessionTitle(n.title)}</span>
      ) : (
        <a class="node-title" href={`/sessions/${n.id}`}>
          {sessionTitle(n.title)}
        </a>
      )}
      <span class="mono">
        #{n.id} · <Status status={n.status} />
      </span>
      <GenesisPill genesis={n.genesis} schedulingClass={n.schedulingClass} />
      {edge && (
        <span class={`pill edge-basis edge-${n.placement}`} data-edge-basis={n.placement === 'spawn' ? (n.parentBasis ?? '') : 'uncle'}>
          {edge}
        </span>
      )}
      {n.alsoSenior.map((s) => (
        <span
          class={`chip uncle-chip basis-${s.basis}`}
          data-uncle-id={String(s.id)}
          title={s.basis === 'declared' ? 'claimed by the caller; nothing verified it' : 'proved with the senior’s own credential'}
        >
          also senior <a href={`/sessions/${s.id}`}>#{s.id}</a>
          {s.basis === 'declared' ? <span class="chip-mark"> · declared</span> : null}
          <RemoveUncleButton junior={n.id} uncle={s.id} viewer={props.viewer} />
        </span>
      ))}
      {hidden && (
        <span class="node-note hidden-seniors">
          {hidden} — see the API (<code>GET /api/v1/sessions/{n.id}/hierarchy</code>) or <a href={`/sessions/${n.id}`}>open #{n.id}</a>, whose tree starts from
          its seniors
        </span>
      )}
      {n.drawnUnder && <span class="pill drawn-under">{drawnUnderText(n.drawnUnder)}</span>}
      {n.isCurrent && <span class="node-note">← this session</span>}
    </li>
  );
}

export function HierarchyTree(props: { hierarchy: Hierarchy }) {
  const h = props.hierarchy;
  const levels = nodeLevels(h);
  const note = hierarchyNote(h);
  return (
    <>
      <ol class="tree" aria-label="Session hierarchy">
        {h.nodes.map((n) => (
          <NodeRow node={n} level={levels.get(n.id) ?? 0} viewer={h.sessionId} />
        ))}
      </ol>
      {note && (
        <p class="notice warn truncation-note" data-truncated="true">
          {note}
        </p>
      )}
    </>
  );
}
