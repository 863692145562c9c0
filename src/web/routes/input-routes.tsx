import type { Context, Hono } from 'hono';
import type { Caller } from '../../app/kernel.js';
import type { AppContext } from '../../app/kernel.js';
import { changeQueuedItem, deliverNew, listEnqueued } from '../../app/inbox/index.js';
import { resendInboxItem } from '../../app/inbox/index.js';
import { listInbox } from '../../app/inbox/index.js';
import { createSession } from '../../app/sessions/index.js';
import { getSession } from '../../app/sessions/index.js';
import type { SessionView } from '../../app/sessions/index.js';
import { WarrantError } from '../../core/errors.js';
import { refusalOf, toWarrantError } from '../../http/errors.js';
import type { HostGuard } from '../../http/host-guard.js';
import { ChatForm } from '../components/chat-bubble.js';
import { sessionTitle } from '../components/format.js';
import {
  EnqueuedList,
  INPUT_ACTIONS,
  QUEUE_LIMIT,
  SessionInputCard,
  SessionInputForm,
  type InputAction,
  type SessionInputData,
} from '../components/session-input.js';
import { Layout } from '../layout.js';
import { ErrorMessage } from '../pages/error-page.js';
import { htmlFragment, htmlPage } from '../render.js';
import { field, rawField, redirect, webRoute, type WebRequest } from '../web-request.js';

/**
 * The human input forms of the session page and the chat bubble (docs/api.md "Human input
 * forms"). Transport only: the inbox use cases (app/inbox/deliveries.ts) deliver and record
 * the human's words with the web entry point; `createSession` starts the bubble's router.
 */

function ref(c: Context): string {
  return (c.req.param('ref') ?? '').replace(/^#/, '');
}

/** What the card shows: the session, its queue (enqueued messages not yet delivered) and what was never reported taken. */
export async function loadSessionInput(ctx: AppContext, caller: Caller, session: SessionView): Promise<SessionInputData> {
  const { items, nextCursor } = await listEnqueued(ctx, caller, String(session.id), { states: ['pending', 'leased', 'written'], limit: QUEUE_LIMIT });
  const undelivered = await listInbox(ctx, caller, String(session.id), { states: ['undelivered'], limit: QUEUE_LIMIT });
  return { session, queue: items, queueMore: nextCursor !== null, undelivered: undelivered.items };
}

const NOTICES: Record<string, string> = {
  ...Object.fromEntries(Object.entries(INPUT_ACTIONS).map(([k, v]) => [k, `${v.done}.`])),
  send_now: 'Sent now: the enqueued message is the next turn.',
  withdraw: 'Withdrawn: it will not be delivered; the record that you wrote it stays, marked withdrawn.',
  resend: 'Resent: it is pending again and will be written into the agent again.',
};

/** The notice a plain (no-JS) post leaves for the page it redirects to (`?input=…`). */
export function inputNotice(value: string | undefined): string | null {
  return value ? (NOTICES[value] ?? null) : null;
}

/** A refusal without JS: the session's input form on its own page, the typed text kept. */
function RefusedInputPage(p: { r: WebRequest; session: SessionView; content: string; error: WarrantError }) {
  const s = p.session;
  return (
    <Layout title={`Message #${s.id}`} identity={p.r.identity} csrf={p.r.csrf}>
      <div class="narrow wide">
        <h1>
          Message{' '}
          <a href={`/sessions/${s.id}`}>
            #{s.id} {sessionTitle(s.title)}
          </a>
        </h1>
        <section id="session-input" class="card" aria-labelledby="session-input-heading">
          <h2 id="session-input-heading">Nothing was sent</h2>
          <SessionInputForm session={s} csrf={p.r.csrf} state={{ content: p.content, error: p.error }} />
        </section>
      </div>
    </Layout>
  );
}

/** The page context the chat bubble's wrapper names: only a same-site path, never free text. */
function pagePath(c: Context, r: WebRequest): string {
  const given = field(r.form, 'page');
  let path = given;
  if (!path) {
    try {
      const referer = new URL(c.req.header('referer') ?? '');
      path = referer.host === new URL(c.req.url).host ? referer.pathname : '';
    } catch {
      path = '';
    }
  }
  if (!path.startsWith('/') || path.startsWith('//')) return '/';
  return new URL(path, 'http://x').pathname.slice(0, 200);
}

/**
 * docs/human-messages.md: the page-context wrapper is composed by the UI and is part of the router's prompt
 * only; the recorded human message and the original prompt are the human's words alone.
 */
async function chatPrompt(ctx: AppContext, caller: Caller, path: string, words: string): Promise<string> {
  let page = `the web UI page ${path}`;
  if (path === '/') page = 'the sessions home page (the session strip and the list of sessions)';
  const sessionRef = /^\/sessions\/(\d+)(?:\/|$)/.exec(path)?.[1];
  if (sessionRef) {
    try {
      const s = await getSession(ctx, caller, sessionRef);
      page = `the page of session #${s.id} “${sessionTitle(s.title)}” (uid ${s.uid}; status ${s.status}${s.agentRoot ? `; agent ${s.agentRoot}` : ''}) at ${path}`;
    } catch (error) {
      if (!toWarrantError(error)) throw error;
      page = `the page ${path} (a session the human cannot see any more)`;
    }
  }
  return [
    '[Page context, added by the Warrant web UI — not the human’s words]',
    `The human typed this into the chat bubble while looking at ${page}.`,
    '',
    '[The human’s message, verbatim]',
    words,
  ].join('\n');
}

export function registerInputRoutes(app: Hono<any>, ctx: AppContext, guard: HostGuard): void {
  const route = (method: 'GET' | 'POST', path: string, handler: Parameters<typeof webRoute>[6]) =>
    webRoute(app, ctx, guard, method, path, 'signed-in', handler);
  const who = (r: WebRequest): Caller => r.identity!.caller;

  /**
   * The act's result: htmx gets the notice in `#input-result` and, out of band, the fresh card
   * after a delivery (an empty box, a new idempotency key) or only the queue after a change
   * to it (the box keeps whatever is being typed).
   */
  async function answered(c: Context, r: WebRequest, sessionRef: string, done: string): Promise<Response> {
    const session = await getSession(ctx, who(r), sessionRef);
    if (!r.htmx) return c.redirect(`/sessions/${session.id}?input=${done}#session-input`, 303);
    const data = await loadSessionInput(ctx, who(r), session);
    return htmlFragment(
      c,
      <>
        <p class="notice ok" data-input-result={done}>
          {NOTICES[done]}
        </p>
        {done in INPUT_ACTIONS ? <SessionInputCard data={data} csrf={r.csrf} oob /> : <EnqueuedList data={data} csrf={r.csrf} oob />}
      </>,
    );
  }

  for (const act of Object.keys(INPUT_ACTIONS) as InputAction[]) {
    route('POST', `/sessions/:ref/${act}`, async (c, r) => {
      const content = rawField(r.form, 'content');
      try {
        // the REST route's call (src/http/routes/deliveries.ts): the app records the words as web_ui.<entry point>
        const key = field(r.form, 'idempotency_key');
        await deliverNew(ctx, who(r), ref(c), act, { content, ...(key ? { idempotencyKey: key } : {}) });
      } catch (error) {
        const refusal = refusalOf(error);
        if (r.htmx) return htmlFragment(c, <ErrorMessage error={refusal} />, refusal.status);
        const session = await getSession(ctx, who(r), ref(c));
        return htmlPage(c, <RefusedInputPage r={r} session={session} content={content} error={refusal} />, refusal.status);
      }
      return answered(c, r, ref(c), act);
    });
  }

  route('GET', '/sessions/:ref/enqueued', async (c, r) => {
    const session = await getSession(ctx, who(r), ref(c));
    return htmlFragment(c, <EnqueuedList data={await loadSessionInput(ctx, who(r), session)} csrf={r.csrf} />);
  });

  for (const change of ['send_now', 'withdraw'] as const) {
    route('POST', `/sessions/:ref/enqueued/:mid/${change}`, async (c, r) => {
      const mid = Number(c.req.param('mid'));
      if (!Number.isSafeInteger(mid) || mid <= 0)
        throw new WarrantError('invalid-request', 'message id: must be a positive integer.', { details: { field: 'mid' } });
      // the app refuses what is not pending (enqueued-message-not-pending) and keeps a withdrawn message's record
      await changeQueuedItem(ctx, who(r), ref(c), mid, change);
      return answered(c, r, ref(c), change);
    });
  }

  route('POST', '/sessions/:ref/inbox/:item/resend', async (c, r) => {
    const item = Number(c.req.param('item'));
    if (!Number.isSafeInteger(item) || item <= 0)
      throw new WarrantError('invalid-request', 'item id: must be a positive integer.', { details: { field: 'item' } });
    // the app refuses what is not undelivered, and whoever may not deliver to the session
    await resendInboxItem(ctx, who(r), item);
    return answered(c, r, ref(c), 'resend');
  });

  route('POST', '/sessions/chat', async (c, r) => {
    const words = rawField(r.form, 'words');
    const page = pagePath(c, r);
    try {
      if (!words.trim()) throw new WarrantError('invalid-request', 'words: type what the router session should do.', { details: { field: 'words' } });
      const key = field(r.form, 'idempotency_key');
      const created = await createSession(ctx, who(r), {
        ...(key ? { idempotencyKey: key.slice(0, 200) } : {}),
        prompt: await chatPrompt(ctx, who(r), page, words),
        originalPrompt: words,
        agentRoot: 'router',
        // the human's act, not the viewed session's: no parent hint (the page is context only)
        humanInput: { entryPoint: 'web_ui.chat_bubble', content: words },
      });
      return redirect(c, `/sessions/${created.session.id}`, r.htmx);
    } catch (error) {
      const refusal = refusalOf(error);
      if (r.htmx) return htmlFragment(c, <ErrorMessage error={refusal} />, refusal.status);
      return htmlPage(
        c,
        <Layout title="Ask a router session" identity={r.identity} csrf={r.csrf}>
          <div class="narrow">
            <h1>Ask a router session</h1>
            <ChatForm csrf={r.csrf} standalone state={{ words, page, error: refusal }} />
          </div>
        </Layout>,
        refusal.status,
      );
    }
  });
}
