import { randomUUID } from 'node:crypto';
import type { WarrantError } from '../../core/errors.js';
import { CSRF_FIELD } from '../csrf.js';

/**
 * The chat bubble (docs/api.md, 03 `web_ui.chat_bubble`): a small floating
 * form on every signed-in page that starts a router session. The UI wraps the human's words
 * in the context of the page they were looking at; only the words are recorded as theirs.
 *
 * A `<details>`: its summary is a real button without any script (Enter / Space toggle it);
 * the client module adds Escape to close and fills in which page this is. On a phone it
 * sits in the flow under the header (the layout places it there) and opens downwards.
 */

interface ChatFormState {
  words?: string;
  page?: string;
  error?: WarrantError | null;
}

export function ChatForm(props: { csrf: string; state?: ChatFormState; standalone?: boolean }) {
  const st = props.state ?? {};
  const id = props.standalone ? 'chat-page-words' : 'chat-bubble-words';
  return (
    <form
      class={props.standalone ? 'card chat-form' : 'chat-panel chat-form'}
      method="post"
      action="/sessions/chat"
      hx-post="/sessions/chat"
      hx-target="find .chat-result"
      hx-swap="innerHTML"
      hx-disabled-elt="find button[type='submit']"
    >
      <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
      <input type="hidden" name="idempotency_key" value={`web-${randomUUID()}`} />
      <input type="hidden" name="page" value={st.page ?? ''} data-chat-page />
      <label for={id}>Ask a router session</label>
      <textarea id={id} name="words" required maxlength={100000} placeholder="What should happen?" aria-describedby={`${id}-hint`}>
        {st.words ?? ''}
      </textarea>
      <p class="hint" id={`${id}-hint`}>
        Starts a new router session. Your words are recorded as typed; the page you are on is added as context for the router, never as your words.
      </p>
      <div class="chat-result" role="status" aria-live="polite">
        {st.error && (
          <div class="notice error" role="alert" data-error={st.error.token}>
            <strong>{st.error.token}</strong>: {st.error.message}
          </div>
        )}
      </div>
      <button type="submit" class="primary">
        Start router session
      </button>
    </form>
  );
}

export function ChatBubble(props: { csrf: string }) {
  return (
    <details class="chat-bubble" data-chat-bubble>
      <summary class="button primary chat-toggle" aria-label="Chat: ask a router session">
        Ask
      </summary>
      <ChatForm csrf={props.csrf} />
    </details>
  );
}
