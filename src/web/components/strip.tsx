import type { SessionView } from '../../app/sessions/index.js';
import { Status, sessionTitle } from './format.js';

/**
 * The session strip (docs/api.md): open sessions as tabs. Each tab carries what the client needs
 * to draw lineage lines tab → tab (`data-tab-id`, `data-parent-id`, `data-status`), nothing more;
 * the geometry is `lineagePath` in src/core, run in the browser.
 */
export const STRIP_LIMIT = 60;

/** live refresh: the strip re-renders (coalesced) when any session is created, changes or goes */
const STRIP_TRIGGERS = 'sse:session_created delay:150ms, sse:session_updated delay:150ms, sse:session_deleted delay:150ms, sse:resync';

function hueOf(id: number): number {
  return id % 8;
}

function StripTab(props: { session: SessionView }) {
  const s = props.session;
  const hue = hueOf(s.id);
  return (
    <a
      class={`tab hue-${hue}`}
      href={`/sessions/${s.id}`}
      data-tab-id={String(s.id)}
      data-parent-id={s.lineageParentId === null ? '' : String(s.lineageParentId)}
      data-status={s.status}
      data-hue={String(hue)}
      title={sessionTitle(s.title)}
    >
      <span class="tab-title">{sessionTitle(s.title)}</span>
      <span class="tab-meta">
        <span class="mono">#{s.id}</span>
        <Status status={s.status} />
      </span>
    </a>
  );
}

export function StripNote(props: { shown: number; more: boolean; oob?: boolean }) {
  return (
    <p id="strip-note" class="hint" {...(props.oob ? { 'hx-swap-oob': 'true' } : {})}>
      {props.more
        ? `Showing the ${props.shown} newest open sessions; older ones are in the list below.`
        : `${props.shown} open session${props.shown === 1 ? '' : 's'} (ended ones are in the list below).`}
    </p>
  );
}

/** The strip's tabs, oldest on the left (the fragment the live refresh swaps in). */
export function StripTabs(props: { sessions: SessionView[] }) {
  if (props.sessions.length === 0) return <p class="strip-empty">No open sessions. Start one with the quick prompt below.</p>;
  return (
    <>
      {props.sessions.map((s) => (
        <StripTab session={s} />
      ))}
    </>
  );
}

export function Strip(props: { sessions: SessionView[]; more: boolean }) {
  return (
    <section class="strip-section" aria-labelledby="strip-heading">
      <div class="strip-head">
        <h2 id="strip-heading">Open sessions</h2>
        <StripNote shown={props.sessions.length} more={props.more} />
      </div>
      <div class="strip" data-strip>
        <nav class="strip-scroller" aria-label="Open sessions" data-strip-scroller hx-get="/ui/strip" hx-trigger={STRIP_TRIGGERS} hx-swap="innerHTML">
          <StripTabs sessions={props.sessions} />
        </nav>
        <svg class="lineage-layer" aria-hidden="true" focusable="false" data-lineage-layer></svg>
      </div>
    </section>
  );
}
