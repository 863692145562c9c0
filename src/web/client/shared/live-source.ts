// The live connection every tab shares (docs/api.md "Live events"): a SharedWorker holds one
// EventSource for the browser; each tab gets an EventSource-shaped source fed by it.
import type { ToTab } from '../live-worker.js';

/** The live event types the pages listen for. */
export const EVENT_TYPES = [
  'session_created',
  'session_updated',
  'session_deleted',
  'hierarchy_changed',
  'human_message_recorded',
  'inbox_changed',
  'message_delivered',
  'resync',
];

/** EventSource's readyState values (a shared source mirrors them for the extension). */
const CONNECTING = 0;
const OPEN = 1;
const CLOSED = 2;

/**
 * What the htmx SSE extension is handed instead of an EventSource when the browser has
 * SharedWorker: the same surface (addEventListener, onopen, onerror, readyState, close), fed by
 * the browser's one live connection in /assets/live-worker.js. Each name a listener is added for
 * is asked of the worker, which forwards only those events to this tab.
 */
export class SharedLiveSource extends EventTarget {
  readyState = CONNECTING;
  onopen: ((e: Event) => void) | null = null;
  onerror: ((e: Event) => void) | null = null;
  onmessage: ((e: MessageEvent) => void) | null = null;
  readonly withCredentials = true;
  private readonly asked = new Set<string>();

  constructor(
    readonly url: string,
    private readonly port: MessagePort,
    private readonly panels: number[],
    /** the live event id the page's data is as of: the worker replays what came after it */
    private readonly since: string | null,
    private readonly onEvent: (type: string, data: string, id: string) => void,
  ) {
    super();
    port.onmessage = (e: MessageEvent<ToTab>) => this.receive(e.data);
    port.start();
    this.register();
    // a page restored from the back-forward cache said bye when it was hidden: register again
    window.addEventListener('pageshow', (e) => {
      if (e.persisted && this.readyState !== CLOSED) this.register();
    });
    window.addEventListener('pagehide', () => this.port.postMessage({ type: 'bye' }));
  }

  /** Tells the worker every event name this tab reads, then the panels it shows. */
  private register(): void {
    for (const name of EVENT_TYPES) this.asked.add(name);
    for (const name of this.asked) this.port.postMessage({ type: 'listen', name });
    this.port.postMessage({ type: 'watch', panels: this.panels, since: this.since });
  }

  private ask(name: string): void {
    if (this.asked.has(name)) return;
    this.asked.add(name);
    this.port.postMessage({ type: 'listen', name });
  }

  override addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void {
    super.addEventListener(type, listener, options);
    if (this.readyState !== CLOSED) this.ask(type);
  }

  private receive(message: ToTab): void {
    if (this.readyState === CLOSED) return;
    if (message.type === 'open') {
      if (this.readyState === OPEN) return;
      this.readyState = OPEN;
      const open = new Event('open');
      this.onopen?.(open);
      this.dispatchEvent(open);
      return;
    }
    this.onEvent(message.event, message.data, message.id);
    const event = new MessageEvent(message.event, { data: message.data, lastEventId: message.id });
    if (message.event === 'message') this.onmessage?.(event);
    this.dispatchEvent(event);
  }

  close(): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.port.postMessage({ type: 'bye' });
  }
}

/** The live event id the server rendered this page's data as of (`data-live-since`), if any. */
export function pageLiveSince(): string | null {
  const since = document.querySelector<HTMLElement>('[data-live-since]')?.dataset.liveSince;
  return since && /^\d+$/.test(since) ? since : null;
}

/** The panels a stream URL asks to keep live (`?panel=1,2`). */
export function panelsOf(url: string): number[] {
  const list = new URL(url, location.href).searchParams.getAll('panel').flatMap((v) => v.split(','));
  return list.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
}

/** The browser's shared live connection, or null where SharedWorker is missing or refused. */
export function sharedWorkerPort(): MessagePort | null {
  if (typeof SharedWorker === 'undefined') return null;
  try {
    // one worker per signed-in user: a tab signed in as someone else never shares another's stream
    const who = document.querySelector<HTMLElement>('[data-live-user]')?.dataset.liveUser ?? 'anonymous';
    return new SharedWorker('/assets/live-worker.js', { name: `warrant-live-${who}` }).port;
  } catch {
    return null;
  }
}
