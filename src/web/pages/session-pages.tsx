import { randomUUID } from 'node:crypto';
import type { WebIdentity } from '../../app/users/index.js';
import type { SessionView } from '../../app/sessions/index.js';
import type { EventView } from '../../app/sessions/index.js';
import type { SessionMessage } from '../../app/messages/index.js';
import { CsrfField, Layout } from '../layout.js';
import { Strip } from '../components/strip.js';
import { SessionFilters, SessionList, type ListFilters } from '../components/session-list.js';
import { SessionStatusSection } from '../components/session-status.js';
import { SessionInputCard, type SessionInputData } from '../components/session-input.js';
import { PanelSkeleton } from '../components/provenance-panel.js';
import { TimelineSection } from '../components/timeline.js';
import { AgentMessagesSection } from '../components/agent-messages-panel.js';
import { TranscriptSection, type TranscriptTail } from '../components/transcript-panel.js';
import { sessionTitle } from '../components/format.js';
import type { WarrantError } from '../../core/errors.js';
import { ErrorMessage } from './error-page.js';

/** Home, session, new-session and delete-confirmation pages (docs/api.md). */

interface HomeProps {
  identity: WebIdentity;
  csrf: string;
  /** the newest live event id before the page's data was read */
  liveSince: number;
  strip: { sessions: SessionView[]; more: boolean };
  list: { sessions: SessionView[]; nextCursor: string | null; filters: ListFilters };
  deletedId: number | null;
}

/** One key per rendered form: a double submit replays the first create instead of making two. */
function IdempotencyField() {
  return <input type="hidden" name="idempotency_key" value={`web-${randomUUID()}`} />;
}

function QuickPromptForm(props: { csrf: string }) {
  return (
    <form class="card" method="post" action="/sessions/quick" aria-labelledby="quick-heading">
      <h2 id="quick-heading">Quick prompt</h2>
      <CsrfField token={props.csrf} />
      <IdempotencyField />
      <div class="field">
        <label for="quick-prompt">Start a router session with</label>
        <textarea id="quick-prompt" name="prompt" required maxlength={100000} placeholder="What should it do?"></textarea>
        <p class="hint">Your words are the session’s prompt, as typed. It becomes yours; a runtime picks it up when one attaches.</p>
      </div>
      <button type="submit" class="primary">
        Start
      </button>
    </form>
  );
}

export function HomePage(p: HomeProps) {
  return (
    <Layout title="Sessions" identity={p.identity} csrf={p.csrf} nav="sessions" liveSince={p.liveSince}>
      {p.deletedId !== null && (
        <p class="notice ok" role="status">
          Session #{p.deletedId} was deleted. Its deletion record keeps who deleted it and what it held.
        </p>
      )}
      <Strip sessions={p.strip.sessions} more={p.strip.more} />
      <QuickPromptForm csrf={p.csrf} />
      <section aria-labelledby="list-heading">
        <h2 id="list-heading">Sessions</h2>
        <SessionFilters filters={p.list.filters} />
        <SessionList sessions={p.list.sessions} nextCursor={p.list.nextCursor} filters={p.list.filters} />
      </section>
    </Layout>
  );
}

interface SessionPageProps {
  identity: WebIdentity;
  csrf: string;
  /** the newest live event id before the page's data was read */
  liveSince: number;
  session: SessionView;
  panelRows: number;
  events: EventView[];
  eventsNextCursor: string | null;
  /** the agent messages it sent and received (components/agent-messages-panel.tsx) */
  messages: SessionMessage[];
  /** the latest transcript records (components/transcript-panel.tsx) */
  transcript: TranscriptTail;
  /** the human input card: follow-up, enqueue, interrupt and the queue (components/session-input.tsx) */
  input: SessionInputData;
  /** the result of a plain (no-JS) post of that card, shown once after its redirect */
  inputNotice?: string | null;
  /** right after a web create whose parent hint was dropped (docs/concepts.md) */
  parentDropped: { requested: string; reason: string } | null;
}

const DROP_EXPLAINED: Record<string, string> = {
  'not-found': 'no session has that id or uid',
  'ambiguous-prefix': 'that uid prefix matches more than one session',
  'prefix-too-short': 'a uid prefix needs at least 8 hex characters',
  'hint-too-long': 'it is longer than 100 characters',
  'owner-mismatch': 'that session belongs to someone else',
  'caller-disagrees': 'the credential named another parent',
};

export function SessionPage(p: SessionPageProps) {
  const s = p.session;
  return (
    <Layout title={`#${s.id} ${sessionTitle(s.title)}`} identity={p.identity} csrf={p.csrf} liveSince={p.liveSince} livePanel={s.id}>
      <div class="page-grid">
        {p.parentDropped && (
          <p class="notice warn" role="status">
            Created without a parent: “{p.parentDropped.requested}” was not used because {DROP_EXPLAINED[p.parentDropped.reason] ?? p.parentDropped.reason}.
          </p>
        )}
        <SessionStatusSection session={s} csrf={p.csrf} />
        <div id="action-result" role="status" aria-live="polite"></div>
        <SessionInputCard data={p.input} csrf={p.csrf} notice={p.inputNotice ?? null} />
        <PanelSkeleton sessionId={s.id} rows={p.panelRows} />
        <AgentMessagesSection sessionId={s.id} messages={p.messages} />
        <TimelineSection sessionId={s.id} events={p.events} nextCursor={p.eventsNextCursor} />
        <TranscriptSection tail={p.transcript} />
      </div>
    </Layout>
  );
}

export function NewSessionPage(p: { identity: WebIdentity; csrf: string; values?: Record<string, string>; error?: WarrantError | null }) {
  const v = p.values ?? {};
  return (
    <Layout title="New session" identity={p.identity} csrf={p.csrf} nav="new">
      <h1>New session</h1>
      {p.error && <ErrorMessage error={p.error} />}
      <form class="card" method="post" action="/sessions">
        <CsrfField token={p.csrf} />
        <IdempotencyField />
        <div class="field">
          <label for="new-prompt">Prompt</label>
          <textarea id="new-prompt" name="prompt" maxlength={100000}>
            {v.prompt ?? ''}
          </textarea>
          <p class="hint">Your words, as typed, are the session’s prompt.</p>
        </div>
        <div class="form-row">
          <div class="field">
            <label for="new-title">Title</label>
            <input id="new-title" type="text" name="title" maxlength={500} value={v.title ?? ''} />
            <p class="hint">Optional: otherwise taken from the first line of the prompt.</p>
          </div>
          <div class="field">
            <label for="new-agent-root">Agent</label>
            <input id="new-agent-root" type="text" name="agent_root" maxlength={64} value={v.agent_root ?? ''} placeholder="router, worker, claude-code…" />
          </div>
        </div>
        <div class="form-row">
          <div class="field">
            <label for="new-parent">Parent session</label>
            <input id="new-parent" type="text" name="parent" maxlength={100} value={v.parent ?? ''} placeholder="#42 or a uid prefix" />
            <p class="hint">Optional. A parent that does not resolve is dropped, never an error; the new page says why.</p>
          </div>
          <div class="field">
            <label for="new-model">Model</label>
            <input id="new-model" type="text" name="model" maxlength={200} value={v.model ?? ''} />
          </div>
        </div>
        <button type="submit" class="primary">
          Create session
        </button>
      </form>
    </Layout>
  );
}

export function DeleteConfirmPage(p: { identity: WebIdentity; csrf: string; session: SessionView }) {
  const s = p.session;
  return (
    <Layout title={`Delete #${s.id}`} identity={p.identity} csrf={p.csrf}>
      <div class="narrow">
        <h1>Delete session #{s.id}?</h1>
        <form class="card" method="post" action={`/sessions/${s.id}/delete`}>
          <p>
            “{sessionTitle(s.title)}” and its events, prompt and transcript are removed. A deletion record keeps who deleted it, on whose behalf, and what it
            held; its children keep existing without a parent.
          </p>
          <CsrfField token={p.csrf} />
          <div class="actions">
            <button type="submit" class="danger">
              Delete #{s.id}
            </button>
            <a class="button" href={`/sessions/${s.id}`}>
              Keep it
            </a>
          </div>
        </form>
      </div>
    </Layout>
  );
}
