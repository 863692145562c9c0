// A session page's provenance panel arrives by its own request (`/sessions/:id/provenance_panel`)
// while the page shows a skeleton, and the skeleton takes no live event (it carries no
// `sse-swap`). A `panel-<id>` event that reaches the page meanwhile can be newer than that
// request's answer: without this, the older answer would be swapped in and stay until the next
// change. So the newest such event is held, and handed to the panel once the panel is in place,
// where the htmx SSE extension swaps it like any other. A held event older than the answer is
// harmless: every change after its walk sends another, later one (src/web/live-panels.tsx).
import { panelsOf } from './live-source.js';

/** The skeleton's mark while a newer panel waits for the panel to land (read by the browser tests). */
const HELD_PANEL_ATTRIBUTE = 'data-newer-panel-held';

const PANEL_EVENT = /^panel-(\d+)$/;

function liveSwapTarget(name: string): Element | null {
  return document.querySelector(`[sse-swap="${name}"]`);
}

function skeletonOf(name: string): Element | null {
  const id = PANEL_EVENT.exec(name)?.[1];
  return id ? document.querySelector(`.panel-skeleton[hx-get="/sessions/${id}/provenance_panel"]`) : null;
}

// the newest event per panel no panel could take, and the source it came from (the latest one:
// a stream re-created after an error replaces it)
const held = new Map<string, MessageEvent<string>>();
let currentSource: EventTarget | null = null;

/**
 * Listens on `source` (an EventSource, or the shared source standing in for one) for the panels
 * its URL watches, holding each event no panel could take until htmx has processed its panel.
 */
export function holdPanelsUntilLoaded(source: EventTarget, url: string): void {
  if (currentSource === null) document.addEventListener('htmx:afterProcessNode', handOverHeld);
  currentSource = source;
  held.clear();
  for (const id of panelsOf(url)) {
    const name = `panel-${id}`;
    source.addEventListener(name, (event) => {
      if (source !== currentSource) return;
      if (liveSwapTarget(name)) {
        held.delete(name); // the panel is there: the extension swaps it
        return;
      }
      const message = event as MessageEvent<string>;
      held.set(name, new MessageEvent(name, { data: message.data, lastEventId: message.lastEventId }));
      skeletonOf(name)?.setAttribute(HELD_PANEL_ATTRIBUTE, 'true');
    });
  }
}

function handOverHeld(event: Event): void {
  const name = (event.target as Element | null)?.getAttribute?.('sse-swap');
  if (!name || !held.has(name)) return;
  // htmx tells the page before the SSE extension registers the panel's listener: hand it over after
  setTimeout(() => {
    const message = held.get(name);
    if (!message || !currentSource || !liveSwapTarget(name)) return;
    held.delete(name);
    currentSource.dispatchEvent(message);
  }, 0);
}
