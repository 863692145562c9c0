import type { Context, Hono } from 'hono';
import type { Caller } from '../../app/kernel.js';
import type { AppContext } from '../../app/kernel.js';
import { createSession, type CreateSessionInput } from '../../app/sessions/index.js';
import { deleteSession } from '../../app/sessions/index.js';
import { archiveSession, changeLifecycle } from '../../app/sessions/index.js';
import { getSession, listSessionEvents, listSessions } from '../../app/sessions/index.js';
import { readTranscriptTail } from '../../app/sessions/index.js';
import { listSessionMessages } from '../../app/messages/index.js';
import type { SessionView } from '../../app/sessions/index.js';
import type { WebIdentity } from '../../app/users/index.js';
import { WarrantError } from '../../core/errors.js';
import { refusalOf } from '../../http/errors.js';
import type { HostGuard } from '../../http/host-guard.js';
import { streamLiveEvents } from '../../http/routes/live.js';
import { watchPanels } from '../live-panels.js';
import { LIVE_STATUSES, SessionList, statusesFor, type ListFilters } from '../components/session-list.js';
import { SessionStatusSection } from '../components/session-status.js';
import { STRIP_LIMIT, StripNote, StripTabs } from '../components/strip.js';
import { panelRowCount } from '../components/provenance-panel.js';
import { TimelineEvents, TimelineSection } from '../components/timeline.js';
import { AgentMessagesSection } from '../components/agent-messages-panel.js';
import { TRANSCRIPT_PAGE, TranscriptRecords, TranscriptSection } from '../components/transcript-panel.js';
import { Layout } from '../layout.js';
import { DeleteConfirmPage, HomePage, NewSessionPage, SessionPage } from '../pages/session-pages.js';
import { htmlFragment, htmlPage } from '../render.js';
import { inputNotice, loadSessionInput } from './input-routes.js';
import { field, rawField, redirect, webRoute, type FormData } from '../web-request.js';

/** Session pages, their fragments, the web forms that act on sessions, and the live stream. */

const TIMELINE_PAGE = 100;
/** The newest agent messages a session page lists. */
const MESSAGES_PAGE = 100;
/** Children counted for the skeleton's height: enough to size it, cheap enough to keep the page fast. */
const SKELETON_CHILD_ESTIMATE = 20;

function filtersFrom(c: Context): ListFilters {
  const q = (name: string) => (c.req.query(name) ?? '').trim().slice(0, 200);
  return { status: q('status'), owner: q('owner'), q: q('q'), parent: q('parent'), cursor: q('cursor') };
}

async function stripData(ctx: AppContext, caller: Caller): Promise<{ sessions: SessionView[]; more: boolean }> {
  const { sessions } = await listSessions(ctx, caller, { status: [...LIVE_STATUSES], limit: STRIP_LIMIT + 1 });
  return { sessions: sessions.slice(0, STRIP_LIMIT).reverse(), more: sessions.length > STRIP_LIMIT };
}

async function listData(
  ctx: AppContext,
  caller: Caller,
  f: ListFilters,
): Promise<{ sessions: SessionView[]; nextCursor: string | null; filters: ListFilters }> {
  const { sessions, nextCursor } = await listSessions(ctx, caller, {
    status: statusesFor(f.status),
    ...(f.owner ? { owner: f.owner } : {}),
    ...(f.q ? { q: f.q } : {}),
    ...(f.parent ? { parent: f.parent.replace(/^#/, '') } : {}),
    ...(f.cursor ? { cursor: f.cursor } : {}),
    limit: 50,
  });
  return { sessions, nextCursor, filters: f };
}

/**
 * The skeleton's row count: one cheap read of the session's direct children (no walk) — the
 * panel's tree is at least its parent, itself and those.
 */
async function expectedPanelRows(ctx: AppContext, caller: Caller, session: SessionView): Promise<number> {
  const { sessions } = await listSessions(ctx, caller, { parent: String(session.id), limit: SKELETON_CHILD_ESTIMATE });
  return panelRowCount({ hasParent: session.lineageParentId !== null, children: sessions.length });
}

function ref(c: Context): string {
  return (c.req.param('ref') ?? '').replace(/^#/, '');
}

function createInput(form: FormData): CreateSessionInput {
  const prompt = rawField(form, 'prompt');
  const title = field(form, 'title');
  const parent = field(form, 'parent');
  const agentRoot = field(form, 'agent_root');
  const model = field(form, 'model');
  const key = field(form, 'idempotency_key');
  return {
    ...(key ? { idempotencyKey: key.slice(0, 200) } : {}),
    title: title || null,
    prompt: prompt.trim() ? prompt : null,
    // the human's unwrapped ask: the title derives from it (docs/concepts.md)
    originalPrompt: prompt.trim() ? prompt : null,
    agentRoot: agentRoot || null,
    model: model || null,
    parentHint: parent ? parent : null,
  };
}

function afterCreate(c: Context, created: Awaited<ReturnType<typeof createSession>>): Response {
  const r = created.parentResolution;
  const query = r.dropped && r.requested ? `?parent_dropped=${encodeURIComponent(r.dropped)}&requested=${encodeURIComponent(r.requested.slice(0, 100))}` : '';
  return c.redirect(`/sessions/${created.session.id}${query}`, 303);
}

export function registerSessionRoutes(app: Hono<any>, ctx: AppContext, guard: HostGuard): void {
  const route = (method: 'GET' | 'POST', path: string, handler: Parameters<typeof webRoute>[6]) =>
    webRoute(app, ctx, guard, method, path, 'signed-in', handler);
  const who = (identity: WebIdentity | null): Caller => identity!.caller;

  route('GET', '/', async (c, r) => {
    const caller = who(r.identity);
    const deleted = Number(c.req.query('deleted'));
    // read before the data: the page's stream resumes after it, so nothing between is missed
    const liveSince = ctx.live.lastEventId;
    return htmlPage(
      c,
      <HomePage
        identity={r.identity!}
        csrf={r.csrf}
        liveSince={liveSince}
        strip={await stripData(ctx, caller)}
        list={await listData(ctx, caller, filtersFrom(c))}
        deletedId={Number.isSafeInteger(deleted) && deleted > 0 ? deleted : null}
      />,
    );
  });

  route('GET', '/ui/strip', async (c, r) => {
    const strip = await stripData(ctx, who(r.identity));
    return htmlFragment(
      c,
      <>
        <StripTabs sessions={strip.sessions} />
        <StripNote shown={strip.sessions.length} more={strip.more} oob />
      </>,
    );
  });

  route('GET', '/ui/sessions', async (c, r) => {
    const data = await listData(ctx, who(r.identity), filtersFrom(c));
    return htmlFragment(c, <SessionList sessions={data.sessions} nextCursor={data.nextCursor} filters={data.filters} />);
  });

  // docs/api.md: the web UI's own stream — cookie-authenticated, same hub, same visibility filter
  // `?panel=<id>,…`: the session pages whose provenance panels this stream keeps live (live-panels.tsx)
  route('GET', '/ui/events', (c, r) => {
    const caller = who(r.identity);
    const panels = (c.req.queries('panel') ?? [])
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter((v) => /^\d{1,15}$/.test(v));
    return streamLiveEvents(c, ctx, caller, panels.length > 0 ? { derived: (push) => watchPanels(ctx, caller, panels, push) } : {});
  });

  route('GET', '/sessions/new', async (c, r) => htmlPage(c, <NewSessionPage identity={r.identity!} csrf={r.csrf} />));

  route('POST', '/sessions', async (c, r) => {
    const input = createInput(r.form);
    try {
      const created = await createSession(ctx, who(r.identity), {
        ...input,
        humanInput: input.prompt ? { entryPoint: 'web_ui.new_session', content: input.prompt } : null,
      });
      return afterCreate(c, created);
    } catch (error) {
      const refusal = refusalOf(error);
      const values = Object.fromEntries(['prompt', 'title', 'agent_root', 'parent', 'model'].map((k) => [k, rawField(r.form, k)]));
      return htmlPage(c, <NewSessionPage identity={r.identity!} csrf={r.csrf} values={values} error={refusal} />, refusal.status);
    }
  });

  route('POST', '/sessions/quick', async (c, r) => {
    const prompt = rawField(r.form, 'prompt');
    if (!prompt.trim()) throw new WarrantError('invalid-request', 'prompt: type what the session should do.', { details: { field: 'prompt' } });
    const key = field(r.form, 'idempotency_key');
    const created = await createSession(ctx, who(r.identity), {
      ...(key ? { idempotencyKey: key.slice(0, 200) } : {}),
      prompt,
      originalPrompt: prompt,
      agentRoot: 'router',
      humanInput: { entryPoint: 'web_ui.quick_prompt', content: prompt },
    });
    return afterCreate(c, created);
  });

  route('GET', '/sessions/:ref', async (c, r) => {
    const caller = who(r.identity);
    const liveSince = ctx.live.lastEventId;
    const session = await getSession(ctx, caller, ref(c));
    const [panelRows, timeline] = [
      await expectedPanelRows(ctx, caller, session),
      await listSessionEvents(ctx, caller, String(session.id), { limit: TIMELINE_PAGE }),
    ];
    const dropped = c.req.query('parent_dropped');
    return htmlPage(
      c,
      <SessionPage
        identity={r.identity!}
        csrf={r.csrf}
        liveSince={liveSince}
        session={session}
        panelRows={panelRows}
        events={timeline.events}
        eventsNextCursor={timeline.nextCursor}
        messages={await listSessionMessages(ctx, caller, String(session.id), { limit: MESSAGES_PAGE })}
        transcript={await readTranscriptTail(ctx, caller, String(session.id), { limit: TRANSCRIPT_PAGE })}
        input={await loadSessionInput(ctx, caller, session)}
        inputNotice={inputNotice(c.req.query('input'))}
        parentDropped={dropped ? { reason: dropped.slice(0, 40), requested: (c.req.query('requested') ?? '').slice(0, 100) } : null}
      />,
    );
  });

  route('GET', '/sessions/:ref/status', async (c, r) => {
    const session = await getSession(ctx, who(r.identity), ref(c));
    return htmlFragment(c, <SessionStatusSection session={session} csrf={r.csrf} />);
  });

  route('GET', '/sessions/:ref/timeline', async (c, r) => {
    const caller = who(r.identity);
    const cursor = c.req.query('cursor');
    const id = ref(c);
    const timeline = await listSessionEvents(ctx, caller, id, { limit: TIMELINE_PAGE, ...(cursor ? { cursor } : {}) });
    const sessionId = timeline.events[0]?.sessionId ?? (await getSession(ctx, caller, id)).id;
    if (cursor) return htmlFragment(c, <TimelineEvents sessionId={sessionId} events={timeline.events} nextCursor={timeline.nextCursor} />);
    return htmlFragment(c, <TimelineSection sessionId={sessionId} events={timeline.events} nextCursor={timeline.nextCursor} />);
  });

  route('GET', '/sessions/:ref/messages', async (c, r) => {
    const caller = who(r.identity);
    const session = await getSession(ctx, caller, ref(c));
    const messages = await listSessionMessages(ctx, caller, String(session.id), { limit: MESSAGES_PAGE });
    return htmlFragment(c, <AgentMessagesSection sessionId={session.id} messages={messages} />);
  });

  route('GET', '/sessions/:ref/transcript', async (c, r) => {
    const caller = who(r.identity);
    const before = c.req.query('before');
    const session = await getSession(ctx, caller, ref(c));
    const tail = await readTranscriptTail(ctx, caller, String(session.id), { limit: TRANSCRIPT_PAGE, ...(before ? { before: before.slice(0, 200) } : {}) });
    // htmx asks for the page of older records that replaces its button
    if (r.htmx && before) return htmlFragment(c, <TranscriptRecords {...tail} />);
    if (r.htmx) return htmlFragment(c, <TranscriptSection tail={tail} />);
    return htmlPage(
      c,
      <Layout title={`Transcript of #${session.id}`} identity={r.identity} csrf={r.csrf}>
        <h1>
          Transcript of <a href={`/sessions/${session.id}`}>#{session.id}</a>
        </h1>
        {before ? (
          <ol class="transcript">
            <TranscriptRecords {...tail} />
          </ol>
        ) : (
          <TranscriptSection tail={tail} />
        )}
      </Layout>,
    );
  });

  for (const act of ['archive', 'unarchive', 'resume', 'stop'] as const) {
    route('POST', `/sessions/:ref/${act}`, async (c, r) => {
      const caller = who(r.identity);
      let message: string;
      if (act === 'archive') {
        const result = await archiveSession(ctx, caller, ref(c));
        const archived = result.archived.map((id) => `#${id}`).join(', ');
        const skipped = result.skipped
          .map((s) => `#${s.id} (${s.reason === 'active' ? 'running or idle' : 'a session below it is running or idle'})`)
          .join(', ');
        message = [archived ? `Archived ${archived}.` : 'Nothing was archived.', skipped ? `Skipped ${skipped}.` : ''].filter(Boolean).join(' ');
      } else {
        const result = await changeLifecycle(ctx, caller, ref(c), act);
        const s = result.session;
        message = !result.changed
          ? `No change: #${s.id} is ${s.status}; nothing was recorded.`
          : act === 'stop' && s.status !== 'stopped'
            ? `Stop requested: #${s.id} stays ${s.status} until its runtime exits.`
            : `#${s.id} is now ${s.status}.`;
      }
      if (!r.htmx) return c.redirect(`/sessions/${ref(c)}`, 303);
      return htmlFragment(
        c,
        <p class="notice ok" data-action-result={act}>
          {message}
        </p>,
      );
    });
  }

  route('GET', '/sessions/:ref/delete', async (c, r) => {
    const session = await getSession(ctx, who(r.identity), ref(c));
    return htmlPage(c, <DeleteConfirmPage identity={r.identity!} csrf={r.csrf} session={session} />);
  });

  route('POST', '/sessions/:ref/delete', async (c, r) => {
    const { deletion } = await deleteSession(ctx, who(r.identity), ref(c));
    return redirect(c, `/?deleted=${deletion.sessionId}`, r.htmx);
  });
}
