import { detailEntries } from '../../render/event-details.js';
import type { Child } from 'hono/jsx';
import type { EventView } from '../../app/sessions/index.js';
import { HIDDEN_SESSION_LABEL } from '../../core/actors.js';
import { Basis, Time } from './format.js';
import { SESSION_ID_KEYS, VOCABULARY_KEYS, detailLabel, eventPhrase, humanise } from './event-sentences.js';

/**
 * The attributed timeline (docs/attribution.md): every event as a sentence — its actor, what it
 * did, on whose behalf, each with its basis — and its details as labelled values, never raw JSON.
 */

type EventActor = NonNullable<EventView['actor']>;

const capital = (text: string, at: boolean): string => (at ? text.charAt(0).toUpperCase() + text.slice(1) : text);

/** An actor in a sentence (capitalised when it opens one), linked to its page where it has one. */
function TimelineActor(props: { actor: Pick<EventActor, 'kind' | 'ref' | 'displayName'>; opening?: boolean }) {
  const a = props.actor;
  const c = (text: string) => capital(text, props.opening ?? false);
  switch (a.kind) {
    case 'human': {
      const name = a.displayName ?? a.ref ?? c('a removed roster human');
      return a.ref ? (
        <a class="actor actor-human" href={`/supervisor/users/${encodeURIComponent(a.ref)}/caused`} title={`roster key ${a.ref}`}>
          {name}
        </a>
      ) : (
        <span class="actor actor-human">{name}</span>
      );
    }
    case 'session':
      if (a.ref === null) return <span class="actor actor-session">{c(HIDDEN_SESSION_LABEL)}</span>;
      return (
        <span class="actor actor-session">
          {c('session')} <a href={`/sessions/${a.ref}`}>#{a.ref}</a>
          {a.displayName ? ` “${a.displayName}”` : ''}
        </span>
      );
    case 'client':
      return (
        <span class="actor actor-client">
          {c('client')} {a.ref ?? ''}
        </span>
      );
    case 'system':
      return <span class="actor actor-system">Warrant (system)</span>;
    case 'fleet':
      return <span class="actor actor-fleet">{c('the fleet key (a machine, unknown which)')}</span>;
    default:
      return <span class="actor">{c(humanise(String(a.kind)))}</span>;
  }
}

const ACTOR_KINDS: ReadonlySet<string> = new Set(['human', 'session', 'client', 'system', 'fleet']);

function SessionLink(props: { id: unknown }) {
  return typeof props.id === 'number' ? <a href={`/sessions/${props.id}`}>#{props.id}</a> : <DetailValue name="" value={props.id} />;
}

/** One detail value in words: ids of sessions as links, times as times, names of a vocabulary humanised, nesting as labelled parts. */
function DetailValue(props: { name: string; value: unknown; sessionIds?: boolean }): Child {
  const { name, value } = props;
  if (value === null || value === undefined) return <span class="hint">none</span>;
  if (typeof value === 'boolean') return <span>{value ? 'yes' : 'no'}</span>;
  if (typeof value === 'number') return SESSION_ID_KEYS.has(name) || props.sessionIds ? <SessionLink id={value} /> : <span>{String(value)}</span>;
  if (typeof value === 'string') {
    if (name.endsWith('_at') || name === 'deadline') return <Time iso={value} />;
    if (VOCABULARY_KEYS.has(name) || name.endsWith('_basis')) return <span>{humanise(value)}</span>;
    return <span>{value}</span>;
  }
  if (Array.isArray(value))
    return (
      <span>
        {value.length === 0 ? <span class="hint">none</span> : null}
        {(value as unknown[]).map((v, i) => (
          <>
            {i > 0 ? ', ' : ''}
            <DetailValue name={name} value={v} {...(props.sessionIds ? { sessionIds: true } : {})} />
          </>
        ))}
      </span>
    );
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.kind === 'string' && ACTOR_KINDS.has(o.kind) && (typeof o.ref === 'string' || o.ref === null))
      return (
        <span>
          <TimelineActor actor={{ kind: o.kind as EventActor['kind'], ref: o.ref, displayName: null }} />
          {typeof o.basis === 'string' ? ` (${humanise(o.basis)})` : ''}
        </span>
      );
    const entries = Object.entries(value as Record<string, unknown>);
    return (
      <span class="detail-group">
        {entries.map(([k, v], i) => (
          <>
            {i > 0 ? ', ' : ''}
            {detailLabel(k)} <DetailValue name={k} value={v} />
          </>
        ))}
      </span>
    );
  }
  // what is left is a bigint, a symbol or a function: never an object
  return <span>{typeof value === 'bigint' ? value.toString() : ''}</span>;
}

/** `old`/`new` of a parent correction are session ids; everywhere else they are the changed value. */
const SESSION_VALUED_CHANGES: ReadonlySet<string> = new Set(['parent_changed']);

export function EventDetails(props: { event: EventView }) {
  const e = props.event;
  const entries = detailEntries(e.details);
  if (entries.length === 0) return null;
  const sessionValued = SESSION_VALUED_CHANGES.has(e.type);
  return (
    <dl class="event-details">
      {entries.map(([k, v]) => (
        <div class="event-detail">
          <dt>{detailLabel(k)}</dt>
          <dd>
            <DetailValue name={k} value={v} {...(sessionValued && (k === 'old' || k === 'new') ? { sessionIds: true } : {})} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

function sameActor(a: EventActor, b: EventActor): boolean {
  return a.kind === b.kind && a.ref === b.ref;
}

export function EventSentence(props: { event: EventView }) {
  const e = props.event;
  const phrase = eventPhrase(e.type, e.details);
  if (!e.actor)
    return (
      <p class="event-sentence">
        The session’s runtime {phrase} <span class="hint">(runtime state, not attributed)</span>.
      </p>
    );
  return (
    <p class="event-sentence">
      <TimelineActor actor={e.actor} opening /> {phrase} <Basis basis={e.actor.basis} />
      {e.cause && !sameActor(e.cause, e.actor) && (
        <>
          {' '}
          on behalf of <TimelineActor actor={e.cause} /> <Basis basis={e.cause.basis} />
        </>
      )}
      {e.credentialId !== null && <span class="hint"> · with credential {e.credentialId}</span>}
    </p>
  );
}

export function TimelineEvents(props: { sessionId: number; events: EventView[]; nextCursor: string | null }) {
  return (
    <>
      {props.events.map((e) => (
        <li class="event" data-event-type={e.type}>
          <Time iso={e.createdAt} />
          <div>
            <EventSentence event={e} />
            <EventDetails event={e} />
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
