// A session page's provenance panel arrives by its own request (`/sessions/:id/provenance_panel`)
// while the page shows a skeleton, and the skeleton takes no live event (it carries no
// `sse-swap`). A `panel-<id>` event that reaches the page meanwhile can be newer than that
// request's answer: without this, the older answer would be swapped in and stay until the next
// change. So the newest such event is held, and handed to the panel once the panel is in place,
// where the htmx SSE extension swaps it like any other. A held event older than the answer is
// harmless: every change after its walk sends another, later one (src/web/live-panels.tsx).
//
// "No panel could take it" is learnt from the extension itself, not guessed from the page: every
// event is held first, and let go when the extension announces it is swapping it
// (`htmx:sseBeforeMessage`, fired by its listener, which runs after this one). A panel htmx has
// inserted but not yet processed (the settle delay between the two) has no listener yet, so an
// event in that gap stays held too, and is handed over once the panel is processed.
import { panelsOf } from './live-source.js';

/** The skeleton's mark while a newer panel waits for the panel to land (read by the browser tests). */
const HELD_PANEL_ATTRIBUTE = 'data-newer-panel-held';
/** Inside the skeleton, an inert copy of the held panel, so what is held can be seen (devtools, tests). */
const HELD_PANEL_COPY = 'template[data-held-panel]';

const PANEL_EVENT = /^panel-(\d+)$/;

function liveSwapTarget(name: string): Element | null {
  return document.querySelector(`[sse-swap="${name}"]`);
}

function skeletonOf(name: string): Element | null {
  const id = PANEL_EVENT.exec(name)?.[1];
  return id ? document.querySelector(`.panel-skeleton[hx-get="/sessions/${id}/provenance_panel"]`) : null;
}

// the newest event per panel no panel has taken yet, and the source it came from (the latest one:
// a stream re-created after an error replaces it)
const held = new Map<string, MessageEvent<string>>();
let currentSource: EventTarget | null = null;

/**
 * Listens on `source` (an EventSource, or the shared source standing in for one) for the panels
 * its URL watches, holding each event until the SSE extension swaps it into a panel.
 */
export function holdPanelsUntilLoaded(source: EventTarget, url: string): void {
  if (currentSource === null) {
    document.addEventListener('htmx:afterProcessNode', handOverHeld);
    document.addEventListener('htmx:sseBeforeMessage', letGoOfTaken);
    document.addEventListener('htmx:beforeSwap', letGoOfAnswered);
  }
  currentSource = source;
  held.clear();
  for (const id of panelsOf(url)) {
    const name = `panel-${id}`;
    source.addEventListener(name, (event) => {
      if (source !== currentSource) return;
      const message = event as MessageEvent<string>;
      held.set(name, new MessageEvent(name, { data: message.data, lastEventId: message.lastEventId }));
      markSkeleton(name, message.data);
    });
  }
}

function markSkeleton(name: string, data: string): void {
  const skeleton = skeletonOf(name);
  if (!skeleton) return;
  let copy = skeleton.querySelector<HTMLTemplateElement>(HELD_PANEL_COPY);
  if (!copy) {
    copy = document.createElement('template');
    copy.setAttribute('data-held-panel', '');
    skeleton.append(copy);
  }
  copy.innerHTML = data;
  skeleton.setAttribute(HELD_PANEL_ATTRIBUTE, 'true');
}

/** The extension is swapping this event into its panel: nothing to hold. */
function letGoOfTaken(event: Event): void {
  const message = (event as CustomEvent<unknown>).detail;
  if (message instanceof MessageEvent && held.get(message.type)?.data === message.data) held.delete(message.type);
}

/**
 * The skeleton's own answer is the held panel (the stream's first view, usually, on a page where
 * nothing changed): handing it over would swap the same panel in twice.
 */
function letGoOfAnswered(event: Event): void {
  const detail = (event as CustomEvent<{ target?: Element; serverResponse?: string }>).detail;
  const id = detail.target?.matches?.('.panel-skeleton')
    ? /^\/sessions\/(\d+)\/provenance_panel$/.exec(detail.target.getAttribute('hx-get') ?? '')?.[1]
    : undefined;
  const name = id ? `panel-${id}` : undefined;
  if (name && held.get(name)?.data === detail.serverResponse) held.delete(name);
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
