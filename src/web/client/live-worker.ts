/**
 * The one live-event connection of a browser (bundled into /assets/live-worker.js; docs/api.md
 * "Live refresh"): a SharedWorker every tab of the same signed-in user connects to. It holds one
 * EventSource to /ui/events for all of them — browsers allow six HTTP/1.1 connections per host,
 * so a stream per tab would stop the seventh tab from loading anything — and hands each tab the
 * events it listens for. The stream watches the union of the tabs' live panels (`?panel=`); when
 * that set changes it reopens from the last event id it saw, so nothing stored is missed.
 */

/** A tab's messages to the worker. */
type FromTab = { type: 'watch'; panels: number[]; since?: string | null } | { type: 'listen'; name: string } | { type: 'bye' };
/** The worker's messages to a tab. */
export type ToTab = { type: 'open' } | { type: 'event'; event: string; data: string; id: string };

interface Tab {
  panels: number[];
  names: Set<string>;
}

/** the server's bound on panels per stream (src/web/live-panels.tsx) */
const MAX_PANELS = 20;
/** tabs open in bursts: one reopen for all of them */
const REOPEN_DELAY_MS = 50;
const RETRY_MS = 2000;

const tabs = new Map<MessagePort, Tab>();
let source: EventSource | null = null;
let sourceUrl = '';
let open = false;
let lastEventId = '';
const listening = new Set<string>();
/**
 * The latest events with ids, so a tab whose page was rendered before some of them (its
 * `since`) still gets them when it registers. Every event with an id above `recentFloor` is
 * here; a tab asking from below it gets `resync` instead (it re-fetches what it shows).
 */
const RECENT_MAX = 500;
const recent: { id: number; name: string; message: ToTab }[] = [];
let recentFloor: number | null = null;
let reopenTimer: ReturnType<typeof setTimeout> | null = null;

function wantedUrl(): string {
  const panels: number[] = [];
  for (const tab of tabs.values()) for (const id of tab.panels) if (!panels.includes(id)) panels.push(id);
  const kept = panels.slice(-MAX_PANELS).sort((a, b) => a - b);
  return kept.length > 0 ? `/ui/events?panel=${kept.join(',')}` : '/ui/events';
}

function forward(name: string, event: MessageEvent<string>): void {
  if (event.lastEventId) lastEventId = event.lastEventId;
  const message: ToTab = { type: 'event', event: name, data: event.data, id: event.lastEventId };
  remember(name, message);
  for (const [port, tab] of tabs) if (tab.names.has(name)) port.postMessage(message);
}

function remember(name: string, message: ToTab & { type: 'event' }): void {
  const id = Number(message.id);
  if (name === 'resync') {
    // the server could not replay: what came before is unknown, so start the record afresh
    recent.length = 0;
    recentFloor = message.id !== '' && Number.isSafeInteger(id) ? id : null;
    return;
  }
  if (message.id === '' || !Number.isSafeInteger(id)) return;
  recent.push({ id, name, message });
  if (recent.length > RECENT_MAX) recentFloor = recent.shift()!.id;
}

/** What a tab rendered as of `since` missed before it registered: the record, or `resync`. */
function catchUp(port: MessagePort, tab: Tab, since: number): void {
  if (recentFloor === null || since < recentFloor) {
    port.postMessage({ type: 'event', event: 'resync', data: '{}', id: '' } satisfies ToTab);
    return;
  }
  for (const e of recent) if (e.id > since && tab.names.has(e.name)) port.postMessage(e.message);
}

function listen(name: string): void {
  if (listening.has(name)) return;
  listening.add(name);
  source?.addEventListener(name, (e) => forward(name, e as MessageEvent<string>));
}

function connect(): void {
  reopenTimer = null;
  if (tabs.size === 0) {
    source?.close();
    source = null;
    sourceUrl = '';
    open = false;
    return;
  }
  const url = wantedUrl();
  if (source && url === sourceUrl && source.readyState !== EventSource.CLOSED) return;
  source?.close();
  open = false;
  sourceUrl = url;
  const resume = lastEventId ? `${url}${url.includes('?') ? '&' : '?'}last_event_id=${encodeURIComponent(lastEventId)}` : url;
  // the server replays everything after the resume point, so the record is complete from there
  if (recentFloor === null && lastEventId !== '') recentFloor = Number(lastEventId);
  const next = new EventSource(resume, { withCredentials: true });
  source = next;
  const names = [...listening];
  listening.clear();
  for (const name of names) listen(name);
  next.onopen = () => {
    if (source !== next) return;
    open = true;
    for (const port of tabs.keys()) port.postMessage({ type: 'open' } satisfies ToTab);
  };
  next.onerror = () => {
    // the browser retries by itself (with Last-Event-ID) unless it gave up: then so do we, later
    if (source === next && next.readyState === EventSource.CLOSED) {
      open = false;
      schedule(RETRY_MS);
    }
  };
}

function schedule(delay = REOPEN_DELAY_MS): void {
  if (reopenTimer !== null) return;
  reopenTimer = setTimeout(connect, delay);
}

function onTabMessage(port: MessagePort, message: FromTab): void {
  const tab = tabs.get(port) ?? { panels: [], names: new Set<string>() };
  switch (message.type) {
    case 'watch': {
      tabs.set(port, tab);
      tab.panels = message.panels.filter((id) => Number.isSafeInteger(id) && id > 0);
      const since = Number(message.since ?? NaN);
      if (message.since && Number.isSafeInteger(since)) {
        // no stream yet: it starts from the oldest page's data; else this tab catches up from the record
        if (source === null) lastEventId = lastEventId === '' ? String(since) : String(Math.min(Number(lastEventId), since));
        else catchUp(port, tab, since);
      }
      if (open && wantedUrl() === sourceUrl) port.postMessage({ type: 'open' } satisfies ToTab);
      else schedule();
      return;
    }
    case 'listen':
      tab.names.add(message.name);
      tabs.set(port, tab);
      listen(message.name);
      return;
    case 'bye':
      // the port stays usable: a page restored from the back-forward cache registers again on it
      tabs.delete(port);
      // a panel no tab shows any more is dropped at the next reopen; nothing to do at once
      if (tabs.size === 0) schedule();
      return;
  }
}

const scope = self as unknown as { onconnect: ((event: MessageEvent) => void) | null };
scope.onconnect = (event) => {
  const port = event.ports[0]!;
  port.onmessage = (e: MessageEvent<FromTab>) => onTabMessage(port, e.data);
  port.start();
};
