import { ENDED_STATUSES, SESSION_STATUSES } from '../../core/lifecycle.js';
import type { SessionView } from '../../app/sessions/index.js';
import { AgentRootPill, GenesisPill, Status, Time, sessionTitle } from './format.js';

/** The filterable session list on the home page, with "spawned by #N" on each row (docs/api.md). */
export interface ListFilters {
  /** '' = open (everything but archived), 'all', or one status */
  status: string;
  owner: string;
  q: string;
  parent: string;
  cursor: string;
}

const OPEN_STATUSES = SESSION_STATUSES.filter((s) => s !== 'archived');
/** The strip's "open sessions": those whose work has not ended (stopped, failed and archived ones are in the list's Ended part). */
export const LIVE_STATUSES: readonly string[] = SESSION_STATUSES.filter((s) => !ENDED_STATUSES.has(s));

export function statusesFor(filter: string): string[] {
  if (filter === 'all') return [];
  if (filter === '') return [...OPEN_STATUSES];
  return [filter];
}

function filterQuery(f: ListFilters, extra: Partial<ListFilters> = {}): string {
  const merged = { ...f, ...extra };
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(merged)) if (v) params.set(k, v);
  const s = params.toString();
  return s ? `?${s}` : '';
}

const LIST_TRIGGERS = 'sse:session_created delay:300ms, sse:session_updated delay:300ms, sse:session_deleted delay:300ms, sse:resync';

export function SessionRow(props: { session: SessionView }) {
  const s = props.session;
  return (
    <li class="session-row" data-session-row={String(s.id)}>
      <span class="mono">#{s.id}</span>
      <span class="row-title">
        <a href={`/sessions/${s.id}`}>{sessionTitle(s.title)}</a> <AgentRootPill agentRoot={s.agentRoot} />
      </span>
      <span class="row-status">
        <Status status={s.status} />
      </span>
      <span class="row-meta">
        {s.lineageParentId !== null && (
          <span>
            spawned by <a href={`/sessions/${s.lineageParentId}`}>#{s.lineageParentId}</a>
          </span>
        )}
        <span>owner {s.owner ?? 'none'}</span>
        <GenesisPill genesis={s.genesis} schedulingClass={s.schedulingClass} />
        <span>
          created <Time iso={s.createdAt} />
        </span>
      </span>
    </li>
  );
}

/** The list region; re-rendered whole (keeping its filters and page) by filters and live refresh. */
export function SessionList(props: { sessions: SessionView[]; filters: ListFilters; nextCursor: string | null }) {
  const f = props.filters;
  // ended sessions below the open ones, never among them: same page, same order within each part
  const live = props.sessions.filter((s) => !ENDED_STATUSES.has(s.status));
  const ended = props.sessions.filter((s) => ENDED_STATUSES.has(s.status));
  return (
    <div id="session-list" hx-get={`/ui/sessions${filterQuery(f)}`} hx-trigger={LIST_TRIGGERS} hx-swap="outerHTML">
      {props.sessions.length === 0 ? (
        <p class="notice">No sessions match these filters.</p>
      ) : (
        <>
          {live.length > 0 && (
            <ol class="session-rows" aria-label={ended.length > 0 ? 'Open sessions' : 'Sessions'}>
              {live.map((s) => (
                <SessionRow session={s} />
              ))}
            </ol>
          )}
          {ended.length > 0 && (
            <section class="ended-sessions" aria-labelledby="ended-heading">
              <h3 id="ended-heading">Ended</h3>
              <p class="hint">Stopped, failed and archived sessions: their work is over (resume a stopped one from its page).</p>
              <ol class="session-rows" aria-label="Ended sessions">
                {ended.map((s) => (
                  <SessionRow session={s} />
                ))}
              </ol>
            </section>
          )}
        </>
      )}
      <nav class="pager" aria-label="Pages">
        {f.cursor ? (
          <a href={`/${filterQuery(f, { cursor: '' })}`} hx-get={`/ui/sessions${filterQuery(f, { cursor: '' })}`} hx-target="#session-list" hx-swap="outerHTML">
            ← Newest
          </a>
        ) : (
          <span />
        )}
        {props.nextCursor && (
          <a
            href={`/${filterQuery(f, { cursor: props.nextCursor })}`}
            hx-get={`/ui/sessions${filterQuery(f, { cursor: props.nextCursor })}`}
            hx-target="#session-list"
            hx-swap="outerHTML"
          >
            Older sessions →
          </a>
        )}
      </nav>
    </div>
  );
}

export function SessionFilters(props: { filters: ListFilters }) {
  const f = props.filters;
  return (
    <form
      id="session-filters"
      class="filters"
      method="get"
      action="/"
      role="search"
      hx-get="/ui/sessions"
      hx-target="#session-list"
      hx-swap="outerHTML"
      hx-trigger="submit, input delay:300ms, change"
    >
      <div class="field">
        <label for="filter-status">Status</label>
        <select id="filter-status" name="status">
          <option value="" selected={f.status === ''}>
            open (not archived)
          </option>
          <option value="all" selected={f.status === 'all'}>
            all
          </option>
          {SESSION_STATUSES.map((s) => (
            <option value={s} selected={f.status === s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-owner">Owner</label>
        <input id="filter-owner" type="text" name="owner" value={f.owner} placeholder="roster key, or none" autocomplete="off" />
      </div>
      <div class="field grow">
        <label for="filter-q">Search titles</label>
        <input id="filter-q" type="search" name="q" value={f.q} placeholder="words in the title" autocomplete="off" />
      </div>
      {f.parent && (
        <div class="field">
          <label for="filter-parent">Children of</label>
          <input id="filter-parent" type="text" name="parent" value={f.parent} />
        </div>
      )}
      <button type="submit">Apply</button>
    </form>
  );
}
