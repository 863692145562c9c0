import type { SessionMessage } from '../../app/messages/index.js';
import { HIDDEN_SESSION_LABEL } from '../../core/actors.js';
import { messageStateText } from '../../render/message-markdown.js';
import { Time, sessionTitle } from './format.js';

/**
 * The agent messages a session sent and received (docs/messages.md), each reply threaded under
 * the message it answers. A message that never reached its target says why; its words show
 * only to a reader who may read that message.
 */

interface Thread {
  entry: SessionMessage;
  replies: Thread[];
}

/** Replies under their originals; a reply whose original is not on the page stays at the top. */
function threads(entries: readonly SessionMessage[]): Thread[] {
  const byId = new Map<string, Thread>();
  for (const entry of entries) byId.set(entry.message.id, { entry, replies: [] });
  const roots: Thread[] = [];
  for (const entry of entries) {
    const node = byId.get(entry.message.id)!;
    const original = entry.message.replyTo === null ? undefined : byId.get(entry.message.replyTo);
    if (original && original !== node) original.replies.push(node);
    else roots.push(node);
  }
  return roots;
}

/** Why a message was not delivered, in words: its target never acknowledged it. */
const REFUSAL_TEXT: Record<string, string> = {
  expired: 'Not delivered: its deadline passed before its target acknowledged it.',
  failed: 'Not delivered: its target session was deleted before acknowledging it.',
};

function OtherSession(props: { other: SessionMessage['other'] }) {
  const o = props.other;
  if (!o) return <span>{HIDDEN_SESSION_LABEL}</span>;
  return (
    <span>
      session <a href={`/sessions/${o.id}`}>#{o.id}</a> “{sessionTitle(o.title)}”
    </span>
  );
}

function Payload(props: { entry: SessionMessage }) {
  const m = props.entry.message;
  if (m.payload !== null) return <pre class="message-payload">{m.payload}</pre>;
  if (props.entry.payloadWithheld)
    return <p class="hint payload-withheld">Its words are not shown: only its sender, its target and admins may read an agent message.</p>;
  if (m.payloadReclaimedAt) return <p class="hint payload-reclaimed">Its words were removed by retention on {<Time iso={m.payloadReclaimedAt} />}.</p>;
  return null;
}

function MessageItem(props: { thread: Thread }) {
  const { entry, replies } = props.thread;
  const m = entry.message;
  const refusal = REFUSAL_TEXT[m.state];
  return (
    <li class={`agent-message direction-${entry.direction}${refusal ? ' refused' : ''}`} data-message-id={m.id} data-message-state={m.state}>
      <div class="message-head">
        <strong>{m.replyTo ? (entry.direction === 'sent' ? 'Replied to ' : 'Reply from ') : entry.direction === 'sent' ? 'Sent to ' : 'Received from '}</strong>
        <OtherSession other={entry.other} /> · <Time iso={m.acceptedAt} />
        {m.source.basis === 'declared' && <span class="pill basis-declared">sender declared by a fleet caller</span>}
      </div>
      <p class="message-state">
        {refusal ? (
          <span class="notice warn message-refusal" role="note">
            {refusal}
          </span>
        ) : (
          <span class="hint">State: {messageStateText(m.state)}.</span>
        )}
        {m.terminalAt && (
          <span class="hint">
            {' '}
            (<Time iso={m.terminalAt} />)
          </span>
        )}
      </p>
      <Payload entry={entry} />
      <p class="hint mono message-ids">
        message {m.id} · ref {m.ref} · {m.payloadBytes} bytes
      </p>
      {replies.length > 0 && (
        <ol class="message-replies" aria-label="Replies">
          {replies.map((r) => (
            <MessageItem thread={r} />
          ))}
        </ol>
      )}
    </li>
  );
}

export function AgentMessagesSection(props: { sessionId: number; messages: readonly SessionMessage[] }) {
  return (
    <section
      id="agent-messages"
      class="card"
      aria-labelledby="agent-messages-heading"
      data-watch-sessions={String(props.sessionId)}
      hx-get={`/sessions/${props.sessionId}/messages`}
      hx-trigger="warrant:watched delay:300ms"
      hx-swap="outerHTML"
    >
      <h2 id="agent-messages-heading">Agent messages</h2>
      {props.messages.length === 0 ? (
        <p class="hint">This session has sent and received no agent messages.</p>
      ) : (
        <ol class="agent-messages">
          {threads(props.messages).map((t) => (
            <MessageItem thread={t} />
          ))}
        </ol>
      )}
    </section>
  );
}
