import type { UserRecord } from '../../app/users/index.js';
import type { EventView } from '../../app/sessions/index.js';
import type { SessionView } from '../../app/sessions/index.js';
import type { WebIdentity } from '../../app/users/index.js';
import { Time } from '../components/format.js';
import { EventDetails, EventSentence } from '../components/timeline.js';
import { SessionRow } from '../components/session-list.js';
import { Layout } from '../layout.js';

/**
 * `/supervisor/users/:key/caused` (docs/web-ui.md, docs/attribution.md "What a person caused"):
 * the sessions a person caused and the events done on their behalf — or, with `credential`,
 * every act of one of their tokens — each list paged on its own cursor.
 */
interface PersonPageData {
  user: UserRecord;
  sessions: SessionView[];
  sessionsNext: string | null;
  events: EventView[];
  eventsNext: string | null;
  /** the page's query as it stands, so each pager keeps the other list's place */
  query: { sessionsCursor: string | null; eventsCursor: string | null; credential: number | null; limit: number | null };
}

/** One act on the person's behalf: which session, then the timeline's own sentence and details. */
function EventRow(props: { event: EventView }) {
  const e = props.event;
  return (
    <li class="event" data-event-id={String(e.id)} data-event-type={e.type}>
      <Time iso={e.createdAt} />
      <div>
        <p class="hint">
          On <a href={`/sessions/${e.sessionId}`}>session #{e.sessionId}</a>
        </p>
        <EventSentence event={e} />
        <EventDetails event={e} />
      </div>
    </li>
  );
}

export function PersonPage(p: { identity: WebIdentity; csrf: string; data: PersonPageData }) {
  const { user: u, query } = p.data;
  const base = `/supervisor/users/${encodeURIComponent(u.key)}`;
  const href = (change: Partial<PersonPageData['query']>) => {
    const q = { ...query, ...change };
    const qs = new URLSearchParams();
    if (q.credential !== null) qs.set('credential', String(q.credential));
    if (q.sessionsCursor) qs.set('sessions_cursor', q.sessionsCursor);
    if (q.eventsCursor) qs.set('events_cursor', q.eventsCursor);
    if (q.limit !== null) qs.set('limit', String(q.limit));
    const s = qs.toString();
    return `${base}/caused${s ? `?${s}` : ''}`;
  };
  const eventsHeading = query.credential !== null ? `Every act of credential ${query.credential}` : `Events on ${u.displayName}'s behalf`;
  return (
    <Layout title={`What ${u.key} caused`} identity={p.identity} csrf={p.csrf} nav="roster">
      <p>
        <a href={base}>← {u.key}</a> · <a href="/supervisor/users">Roster</a>
      </p>
      <h1>
        What {u.displayName} <span class="mono">({u.key})</span> caused
      </h1>
      <p class="hint">
        Sessions they caused: their own, and those their sessions created, wherever those sit. Work their sessions queued onto someone else's session is an
        event here, not that session.
      </p>
      <section class="card" aria-labelledby="caused-sessions-heading" data-caused-sessions>
        <h2 id="caused-sessions-heading">Sessions</h2>
        {p.data.sessions.length === 0 ? (
          <p class="notice">No sessions{query.sessionsCursor ? ' on this page' : ''}.</p>
        ) : (
          <ol class="session-rows" aria-label="Sessions they caused">
            {p.data.sessions.map((s) => (
              <SessionRow session={s} />
            ))}
          </ol>
        )}
        <nav class="pager" aria-label="Session pages">
          {query.sessionsCursor ? <a href={href({ sessionsCursor: null })}>← Newest</a> : <span />}
          {p.data.sessionsNext && <a href={href({ sessionsCursor: p.data.sessionsNext })}>Older sessions →</a>}
        </nav>
      </section>
      <section class="card" aria-labelledby="caused-events-heading" data-caused-events>
        <h2 id="caused-events-heading">{eventsHeading}</h2>
        {query.credential !== null && (
          <p>
            <a href={href({ credential: null, eventsCursor: null })}>Show every event on their behalf instead</a>
          </p>
        )}
        {p.data.events.length === 0 ? (
          <p class="notice">No events{query.eventsCursor ? ' on this page' : ''}.</p>
        ) : (
          <ol class="timeline" aria-label={eventsHeading}>
            {p.data.events.map((e) => (
              <EventRow event={e} />
            ))}
          </ol>
        )}
        <nav class="pager" aria-label="Event pages">
          {query.eventsCursor ? <a href={href({ eventsCursor: null })}>← Newest</a> : <span />}
          {p.data.eventsNext && <a href={href({ eventsCursor: p.data.eventsNext })}>Older events →</a>}
        </nav>
      </section>
    </Layout>
  );
}
