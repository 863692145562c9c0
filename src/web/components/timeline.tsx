import type { EventView } from '../../app/sessions/index.js';
import { Actor, Basis, Time } from './format.js';

/** The attributed timeline (docs/attribution.md): every event with its actor, cause and their bases. */
function detailText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' · ');
}

export function TimelineEvents(props: { sessionId: number; events: EventView[]; nextCursor: string | null }) {
  return (
    <>
      {props.events.map((e) => (
        <li class="event" data-event-type={e.type}>
          <Time iso={e.createdAt} />
          <div>
            <strong>{e.type}</strong>{' '}
            {e.actor ? (
              <>
                by <Actor actor={e.actor} /> <Basis basis={e.actor.basis} />
              </>
            ) : (
              <span class="hint">not attributed (runtime state)</span>
            )}
            {e.cause && e.actor && (e.cause.kind !== e.actor.kind || e.cause.ref !== e.actor.ref) && (
              <>
                {' '}
                for <Actor actor={e.cause} /> <Basis basis={e.cause.basis} />
              </>
            )}
            {e.credentialId !== null && <span class="hint"> · credential {e.credentialId}</span>}
            {Object.keys(e.details).length > 0 && <div class="event-details">{detailText(e.details)}</div>}
          </div>
        </li>
      ))}
      {props.nextCursor && (
        <li class="event">
          <span />
          <button
            type="button"
            hx-get={`/sessions/${props.sessionId}/timeline?cursor=${encodeURIComponent(props.nextCursor)}`}
            hx-target="closest li"
            hx-swap="outerHTML"
          >
            Load later events
          </button>
        </li>
      )}
    </>
  );
}

export function TimelineSection(props: { sessionId: number; events: EventView[]; nextCursor: string | null }) {
  return (
    <section
      id="timeline"
      class="card"
      aria-labelledby="timeline-heading"
      data-watch-sessions={String(props.sessionId)}
      hx-get={`/sessions/${props.sessionId}/timeline`}
      hx-trigger="warrant:watched delay:300ms"
      hx-swap="outerHTML"
    >
      <h2 id="timeline-heading">Timeline</h2>
      {props.events.length === 0 ? (
        <p class="hint">No events.</p>
      ) : (
        <ol class="timeline">
          <TimelineEvents sessionId={props.sessionId} events={props.events} nextCursor={props.nextCursor} />
        </ol>
      )}
    </section>
  );
}
