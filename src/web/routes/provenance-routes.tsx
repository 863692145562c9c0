import type { Context, Hono } from 'hono';
import { getProvenance } from '../../app/lineage/index.js';
import { removeUncleEdge } from '../../app/lineage/index.js';
import { getSession } from '../../app/sessions/index.js';
import type { AppContext } from '../../app/kernel.js';
import { toWarrantError } from '../../http/errors.js';
import type { HostGuard } from '../../http/host-guard.js';
import { HumanMessagePage } from '../components/human-record-panel.js';
import { PANEL_MESSAGE_PAGE, ProvenancePanel } from '../components/provenance-panel.js';
import { sessionTitle } from '../components/format.js';
import { CsrfField, Layout } from '../layout.js';
import { ErrorMessage } from '../pages/error-page.js';
import { htmlFragment, htmlPage } from '../render.js';
import { field, webRoute } from '../web-request.js';

/**
 * The session page's provenance panel (the hierarchy and the human-message record), its
 * older-messages pages, and the × on an "also senior" chip. Transport only: the walk, the
 * record and the edge removal are the same use cases REST and MCP call.
 */

function param(c: Context, name: string): string {
  return (c.req.param(name) ?? '').replace(/^#/, '');
}

export function registerProvenanceRoutes(app: Hono<any>, ctx: AppContext, guard: HostGuard): void {
  const route = (method: 'GET' | 'POST', path: string, handler: Parameters<typeof webRoute>[6]) =>
    webRoute(app, ctx, guard, method, path, 'signed-in', handler);

  route('GET', '/sessions/:ref/provenance_panel', async (c, r) => {
    const provenance = await getProvenance(ctx, r.identity!.caller, param(c, 'ref'), { limit: PANEL_MESSAGE_PAGE });
    return htmlFragment(c, <ProvenancePanel provenance={provenance} />);
  });

  route('GET', '/sessions/:ref/human_messages', async (c, r) => {
    const cursor = c.req.query('cursor');
    const { humanMessages: record } = await getProvenance(ctx, r.identity!.caller, param(c, 'ref'), {
      limit: PANEL_MESSAGE_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    return htmlFragment(c, <HumanMessagePage sessionId={record.sessionId} entries={record.entries} nextCursor={record.nextCursor} />);
  });

  // Without JS the chip's × lands here: removing an uncle edge is confirmed first, as a page.
  route('GET', '/sessions/:junior/uncles/:uncle/remove', async (c, r) => {
    const caller = r.identity!.caller;
    const junior = await getSession(ctx, caller, param(c, 'junior'));
    const uncle = await getSession(ctx, caller, param(c, 'uncle'));
    const view = Number(c.req.query('view'));
    const back = Number.isSafeInteger(view) && view > 0 ? view : junior.id;
    return htmlPage(
      c,
      <Layout title={`Remove #${uncle.id} as a senior of #${junior.id}`} identity={r.identity} csrf={r.csrf}>
        <div class="narrow">
          <h1>
            Remove #{uncle.id} as a senior of #{junior.id}?
          </h1>
          <form class="card" method="post" action={`/sessions/${junior.id}/uncles/${uncle.id}/remove`}>
            <p>
              “{sessionTitle(uncle.title)}” stops being drawn as a senior of “{sessionTitle(junior.title)}”. Only this edge is removed; the removal is logged on
              both sessions’ timelines with who removed it.
            </p>
            <CsrfField token={r.csrf} />
            <input type="hidden" name="view" value={String(back)} />
            <div class="actions">
              <button type="submit" class="danger">
                Remove the edge
              </button>
              <a class="button" href={`/sessions/${back}`}>
                Keep it
              </a>
            </div>
          </form>
        </div>
      </Layout>,
    );
  });

  route('POST', '/sessions/:junior/uncles/:uncle/remove', async (c, r) => {
    const caller = r.identity!.caller;
    const viewField = Number(field(r.form, 'view'));
    const junior = param(c, 'junior');
    const uncle = param(c, 'uncle');
    try {
      await removeUncleEdge(ctx, caller, junior, uncle);
    } catch (error) {
      const refusal = toWarrantError(error);
      if (!refusal || !r.htmx) throw error;
      // the refusal goes above the tree; the panel stays as it is
      c.header('HX-Retarget', '#panel-result');
      c.header('HX-Reswap', 'innerHTML');
      return htmlFragment(c, <ErrorMessage error={refusal} />, refusal.status);
    }
    const viewer = Number.isSafeInteger(viewField) && viewField > 0 ? String(viewField) : junior;
    if (!r.htmx) return c.redirect(`/sessions/${viewer}`, 303);
    const provenance = await getProvenance(ctx, caller, viewer, { limit: PANEL_MESSAGE_PAGE });
    return htmlFragment(
      c,
      <>
        <ProvenancePanel provenance={provenance} />
        <div id="action-result" hx-swap-oob="innerHTML">
          <p class="notice ok" data-action-result="uncle-removed">
            Removed #{uncle} as a senior of #{junior}. The removal is on both timelines.
          </p>
        </div>
      </>,
    );
  });
}
