import type { Caller } from '../app/kernel.js';
import type { AppContext } from '../app/kernel.js';
import { humanRecordOf, type HumanRecord } from '../app/human-messages/index.js';
import type { HierarchySubscription } from '../app/lineage/index.js';
import type { Provenance } from '../app/lineage/index.js';
import type { LiveEventRecord } from '../app/kernel.js';
import type { Hierarchy } from '../core/hierarchy-types.js';
import { toWarrantError } from '../http/errors.js';
import { PANEL_MESSAGE_PAGE, ProvenancePanel, panelEvent } from './components/provenance-panel.js';

/** How many session pages' panels one stream keeps live (the refresher's per-stream bound). */
const MAX_LIVE_PANELS = 20;

/** The record entries of a view change with these events; the hierarchy does not. */
const RECORD_EVENTS: ReadonlySet<string> = new Set(['human_message_recorded', 'human_message_withdrawn']);

/**
 * Rendered panels, shared by every viewer handed the same hierarchy object. The refresher
 * recomputes one view per distinct (session, visibility) and hands that same object to each
 * of its viewers, so a viewer only ever shares a rendering with viewers who may see exactly
 * what it may; a viewer who sees less gets its own view, and its own rendering. Keyed also by
 * what triggered the rendering (the live event id of a record change), held weakly by the view.
 */
const rendered = new WeakMap<Hierarchy, Map<string, Promise<string>>>();

async function renderPanel(ctx: AppContext, hierarchy: Hierarchy): Promise<string> {
  const current = hierarchy.nodes.find((n) => n.isCurrent);
  const record: HumanRecord = await humanRecordOf(ctx, hierarchy, { limit: PANEL_MESSAGE_PAGE });
  const provenance: Provenance = {
    session: { id: hierarchy.sessionId, uid: current?.uid ?? '', title: current?.title ?? null },
    hierarchy,
    humanMessages: record,
  };
  // an async component inside would make toString() a promise at run time, whatever its declared type
  // eslint-disable-next-line @typescript-eslint/await-thenable
  return String(await (<ProvenancePanel provenance={provenance} />).toString());
}

function sharedRender(ctx: AppContext, hierarchy: Hierarchy, trigger: string): Promise<string> {
  let byTrigger = rendered.get(hierarchy);
  if (!byTrigger) rendered.set(hierarchy, (byTrigger = new Map()));
  let html = byTrigger.get(trigger);
  if (!html) {
    html = renderPanel(ctx, hierarchy);
    byTrigger.set(trigger, html);
    // a failed render is retried by the next viewer, not shared
    html.catch(() => byTrigger.delete(trigger));
  }
  return html;
}

/**
 * The web UI's live provenance panels (docs/api.md "Live refresh"): each panel a stream watches
 * subscribes to the shared hierarchy refresh, the same one `GET /api/v1/events/stream?hierarchy=`
 * uses. A change is walked once per distinct view for every open viewer, and each viewer is sent
 * its panel as HTML (`panel-<id>` events), rendered from the view it may see — never a walk per
 * viewer. A human message recorded in a view re-renders its panel from the view it already has.
 * A ref the caller may not read is skipped, as a 404 would hide it.
 */
export async function watchPanels(ctx: AppContext, caller: Caller, refs: readonly string[], push: (event: string, data: string) => void): Promise<() => void> {
  const views = new Map<number, Hierarchy | null>();
  const subscriptions: HierarchySubscription[] = [];
  let closed = false;
  // one frame at a time per panel, in order: a slow render never lands after a newer one
  const chains = new Map<number, Promise<void>>();
  const send = (id: number, hierarchy: Hierarchy, trigger: string): void => {
    const previous = chains.get(id) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (closed || views.get(id) !== hierarchy) return;
      try {
        push(panelEvent(id), await sharedRender(ctx, hierarchy, trigger));
      } catch (error) {
        ctx.logger.warn({ err: error, session: id }, 'rendering a live panel failed');
      }
    });
    chains.set(id, next);
  };

  const unique = [...new Set(refs)].slice(0, MAX_LIVE_PANELS);
  try {
    for (const ref of unique) {
      let subscription: HierarchySubscription;
      try {
        subscription = await ctx.hierarchies.subscribe(ref, caller, (u) => {
          views.set(u.viewerId, u.hierarchy);
          if (u.hierarchy) send(u.viewerId, u.hierarchy, 'view');
        });
      } catch (error) {
        if (toWarrantError(error)) continue; // unreadable: nothing to watch, nothing revealed
        throw error;
      }
      subscriptions.push(subscription);
      const id = subscription.initial.sessionId;
      views.set(id, subscription.initial);
      // the view as of now, in case it changed after the page loaded its panel (a page still showing
      // the skeleton holds it until its own request's panel lands: src/web/client/shared/held-panels.ts)
      send(id, subscription.initial, 'view');
    }
  } catch (error) {
    for (const s of subscriptions) s.unsubscribe();
    throw error;
  }

  const onLive = (event: LiveEventRecord): void => {
    if (!RECORD_EVENTS.has(event.type) || event.sessionId === null) return;
    for (const [id, hierarchy] of views) {
      if (hierarchy && hierarchy.nodes.some((n) => n.id === event.sessionId)) send(id, hierarchy, `record:${event.id}`);
    }
  };
  const unsubscribeLive = ctx.live.subscribe(onLive);
  return () => {
    closed = true;
    unsubscribeLive();
    for (const s of subscriptions) s.unsubscribe();
  };
}
