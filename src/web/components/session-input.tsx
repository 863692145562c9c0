import { randomUUID } from 'node:crypto';
import type { InboxItemView } from '../../app/inbox/index.js';
import type { SessionView } from '../../app/sessions/index.js';
import type { WarrantError } from '../../core/errors.js';
import { CsrfField } from '../layout.js';
import { ErrorMessage } from '../pages/error-page.js';
import { Time } from './format.js';

/**
 * The session page's human input card (docs/api.md, 05 "The inbox"):
 * follow-up, enqueue and interrupt with one text box, the session's pending enqueued
 * messages with "Send now" and "Withdraw", and items never reported taken with "Resend". Each act records the signed-in human's words
 * with its entry point (docs/human-messages.md) — the app decides that; this only renders and posts.
 *
 * Without JS every button is a plain form post (303 back to the page). With htmx the result
 * lands in `#input-result` (a persistent `role=status` region, so a screen reader announces
 * it) and the card is swapped out-of-band; a refusal leaves the card — and the typed text —
 * as it was.
 */

export type InputAction = 'follow_up' | 'enqueue' | 'interrupt';

export const INPUT_ACTIONS: Record<InputAction, { label: string; done: string }> = {
  follow_up: { label: 'Follow up', done: 'Follow-up delivered as the next turn' },
  enqueue: { label: 'Enqueue', done: 'Enqueued: delivered when the session is idle' },
  interrupt: { label: 'Interrupt', done: 'Interrupt sent: the runtime stops its turn and takes it' },
};

export interface SessionInputData {
  session: SessionView;
  /** pending, leased and written enqueued messages, oldest first */
  queue: InboxItemView[];
  queueMore: boolean;
  /** items of any kind the runner wrote into the agent that it never reported taking */
  undelivered: InboxItemView[];
}

const QUEUE_STATE_LABEL: Record<string, string> = {
  pending: 'pending',
  leased: 'taken by the runtime',
  written: 'written into the agent, awaiting its report that it took it',
};

/**
 * Items written into the agent that it never reported taking: the agent may never have seen
 * them. "Resend" puts one back in the queue to be written again; nothing resends by itself.
 */
function UndeliveredList(props: { sessionId: number; items: InboxItemView[]; csrf: string }) {
  if (props.items.length === 0) return null;
  return (
    <>
      <h3 id="undelivered-heading">Not delivered</h3>
      <p class="hint">Written into the agent, but it never reported taking them within the lease: it may not have seen them. Resend one to write it again.</p>
      <ul class="enqueued-items undelivered-items" aria-labelledby="undelivered-heading">
        {props.items.map((m) => (
          <li class="enqueued-item" data-undelivered-id={String(m.id)} data-state={m.state}>
            <p class="enqueued-content">{m.content}</p>
            <p class="hint">
              #{m.id} · {m.kind.replace('_', ' ')} · written {m.writtenAt ? <Time iso={m.writtenAt} /> : 'earlier'}
            </p>
            <div class="actions">
              <QueueButton url={`/sessions/${props.sessionId}/inbox/${m.id}/resend`} label="Resend" csrf={props.csrf} item={m.id} act="resend" />
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

export const QUEUE_LIMIT = 50;

/** One key per rendered form: a double submit of it delivers once (app/inbox/delivery-idempotency.ts). */
function IdempotencyField() {
  return <input type="hidden" name="idempotency_key" value={`web-${randomUUID()}`} />;
}

const MODE_LABEL: Record<string, string> = { when_idle: 'when idle', next_turn: 'next turn', interrupt: 'interrupt' };

function QueueButton(props: { url: string; label: string; csrf: string; danger?: boolean; confirm?: string; item: number; act: string }) {
  return (
    <form
      method="post"
      action={props.url}
      hx-post={props.url}
      hx-target="#input-result"
      hx-swap="innerHTML"
      hx-confirm={props.confirm}
      hx-disabled-elt="find button"
    >
      <CsrfField token={props.csrf} />
      <button type="submit" class={props.danger ? 'danger' : ''} data-queue-act={props.act} data-queue-item={String(props.item)}>
        {props.label}
      </button>
    </form>
  );
}

/** The queue: pending messages can be sent now or withdrawn; a leased one is the runtime's. */
export function EnqueuedList(props: { data: SessionInputData; csrf: string; oob?: boolean }) {
  const { session, queue, queueMore, undelivered } = props.data;
  const base = `/sessions/${session.id}/enqueued`;
  return (
    <div
      id="enqueued-list"
      class="enqueued"
      data-watch-sessions={String(session.id)}
      hx-get={`/sessions/${session.id}/enqueued`}
      hx-trigger="warrant:watched delay:200ms"
      hx-swap="outerHTML"
      {...(props.oob ? { 'hx-swap-oob': 'outerHTML' } : {})}
    >
      <h3 id="enqueued-heading">Enqueued messages</h3>
      {queue.length === 0 ? (
        <p class="hint">Nothing is waiting: no enqueued message is pending.</p>
      ) : (
        <ul class="enqueued-items" aria-labelledby="enqueued-heading">
          {queue.map((m) => (
            <li class="enqueued-item" data-enqueued-id={String(m.id)} data-state={m.state}>
              <p class="enqueued-content">{m.content}</p>
              <p class="hint">
                #{m.id} · {MODE_LABEL[m.mode] ?? m.mode} · {QUEUE_STATE_LABEL[m.state] ?? m.state} · <Time iso={m.createdAt} />
              </p>
              {m.state === 'pending' && (
                <div class="actions">
                  {m.mode === 'when_idle' && <QueueButton url={`${base}/${m.id}/send_now`} label="Send now" csrf={props.csrf} item={m.id} act="send_now" />}
                  <QueueButton
                    url={`${base}/${m.id}/withdraw`}
                    label="Withdraw"
                    danger
                    csrf={props.csrf}
                    item={m.id}
                    act="withdraw"
                    confirm={`Withdraw enqueued message #${m.id}? It is not delivered; the record that you wrote it stays, marked withdrawn.`}
                  />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {queueMore && <p class="hint">More are queued than shown here; the API lists them all (GET /api/v1/sessions/{session.id}/enqueued_messages).</p>}
      <UndeliveredList sessionId={session.id} items={undelivered} csrf={props.csrf} />
    </div>
  );
}

interface InputFormState {
  /** the text to keep in the box (after a refusal) */
  content?: string;
  error?: WarrantError | null;
}

/** The text box and its three acts; a refusal renders with the typed text kept. */
export function SessionInputForm(props: { session: SessionView; csrf: string; state?: InputFormState }) {
  const id = props.session.id;
  const st = props.state ?? {};
  return (
    <form id="session-input-form" method="post" action={`/sessions/${id}/follow_up`} aria-labelledby="session-input-heading">
      <CsrfField token={props.csrf} />
      <IdempotencyField />
      {st.error && <ErrorMessage error={st.error} />}
      <div class="field">
        <label for="session-input-content">Your message to #{id}</label>
        <textarea id="session-input-content" name="content" required maxlength={100000} aria-describedby="session-input-hint">
          {st.content ?? ''}
        </textarea>
        <p class="hint" id="session-input-hint">
          Recorded as your words, as typed. Follow up: the next turn. Enqueue: delivered when the session is idle. Interrupt: the runtime stops its current turn
          and takes it.
        </p>
      </div>
      <fieldset class="actions input-actions">
        <legend class="visually-hidden">Send it as</legend>
        {(Object.keys(INPUT_ACTIONS) as InputAction[]).map((act) => {
          const url = `/sessions/${id}/${act}`;
          return (
            <button
              type="submit"
              id={`session-input-${act}`}
              class={act === 'follow_up' ? 'primary' : act === 'interrupt' ? 'danger' : ''}
              formaction={url}
              hx-post={url}
              hx-target="#input-result"
              hx-swap="innerHTML"
              hx-disabled-elt="closest fieldset"
            >
              {INPUT_ACTIONS[act].label}
            </button>
          );
        })}
      </fieldset>
    </form>
  );
}

/** The card as the session page places it (after the status section). */
export function SessionInputCard(props: { data: SessionInputData; csrf: string; notice?: string | null; state?: InputFormState; oob?: boolean }) {
  const s = props.data.session;
  return (
    <>
      {!props.oob && (
        <div id="input-result" role="status" aria-live="polite">
          {props.notice && <p class="notice ok">{props.notice}</p>}
        </div>
      )}
      <section id="session-input" class="card" aria-labelledby="session-input-heading" {...(props.oob ? { 'hx-swap-oob': 'outerHTML' } : {})}>
        <h2 id="session-input-heading">Talk to this session</h2>
        {s.status === 'archived' && <p class="notice warn">#{s.id} is archived: nothing can be delivered to it until it is unarchived.</p>}
        <SessionInputForm session={s} csrf={props.csrf} {...(props.state ? { state: props.state } : {})} />
        <EnqueuedList data={props.data} csrf={props.csrf} />
      </section>
    </>
  );
}
