/**
 * The web UI's one client module (bundled by esbuild into /assets/warrant.js): per-device
 * settings and theme, the session strip's lineage lines (docs/api.md), and routing live events
 * to the page regions that watch the sessions they concern. Everything else is htmx.
 */
import { lineageEdges, lineagePath, orderChildrenAfterParents, subtreeOf, type Rect, type StripEdge, type StripTab } from '../../core/lineage-geometry.js';

import { holdPanelsUntilLoaded } from './shared/held-panels.js';
import { EVENT_TYPES, pageLiveSince, panelsOf, SharedLiveSource, sharedWorkerPort } from './shared/live-source.js';

interface HtmxApi {
  trigger(elt: Element, name: string, detail?: unknown): void;
  createEventSource?: (url: string) => EventSource;
}

const htmx = (): HtmxApi | undefined => (window as unknown as { htmx?: HtmxApi }).htmx;

// ---------------------------------------------------------------- device settings

type SettingName = 'lineageLines' | 'orderChildren' | 'hoverHighlight' | 'tintChildren';

/** docs/api.md: "Lineage lines" default on; the optional extras default off. Per device. */
const DEFAULTS: Record<SettingName, boolean> = { lineageLines: true, orderChildren: false, hoverHighlight: false, tintChildren: false };

function setting(name: SettingName): boolean {
  try {
    const v = localStorage.getItem(`warrant.${name}`);
    return v === null ? DEFAULTS[name] : v === 'on';
  } catch {
    return DEFAULTS[name];
  }
}

function storeSetting(name: SettingName, on: boolean): void {
  try {
    localStorage.setItem(`warrant.${name}`, on ? 'on' : 'off');
  } catch {
    /* storage blocked: the setting lasts for this page */
  }
  document.dispatchEvent(new CustomEvent('warrant:settings'));
}

function initSettings(): void {
  for (const box of document.querySelectorAll<HTMLInputElement>('input[data-setting]')) {
    const name = box.dataset.setting as SettingName;
    if (!(name in DEFAULTS)) continue;
    box.checked = setting(name);
    box.addEventListener('change', () => storeSetting(name, box.checked));
  }
}

function currentTheme(): 'light' | 'dark' {
  const set = document.documentElement.dataset.theme;
  if (set === 'light' || set === 'dark') return set;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

function initTheme(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-theme-toggle]')) {
    const label = () => {
      button.textContent = currentTheme() === 'dark' ? 'Light theme' : 'Dark theme';
    };
    label();
    button.addEventListener('click', () => {
      const next = currentTheme() === 'dark' ? 'light' : 'dark';
      document.documentElement.dataset.theme = next;
      try {
        localStorage.setItem('warrant.theme', next);
      } catch {
        /* this page only */
      }
      label();
    });
  }
}

// ---------------------------------------------------------------- lineage lines

const SVG_NS = 'http://www.w3.org/2000/svg';
const DESKTOP = '(min-width: 1024px)';
const RESIZE_THROTTLE_MS = 100;
const NO_RECT: Rect = { left: 0, top: 0, right: 0, bottom: 0 };
/** half the glow's stroke and a little air: the room below the lowest curve */
const BRIDGE_MARGIN_PX = 8;

/** The lowest point of a U-bridge `M x1 y1 C x1 yc, x2 yc, x2 y2` (its two control points share yc). */
function bridgeBottom(y1: number, yc: number, y2: number): number {
  let lowest = Math.max(y1, y2);
  for (let i = 1; i < 16; i++) {
    const t = i / 16;
    const u = 1 - t;
    lowest = Math.max(lowest, u * u * u * y1 + 3 * u * t * (u + t) * yc + t * t * t * y2);
  }
  return lowest;
}

function relative(r: DOMRect, origin: DOMRect): Rect {
  return { left: r.left - origin.left, top: r.top - origin.top, right: r.right - origin.left, bottom: r.bottom - origin.top };
}

/**
 * Draws `path.lineage-line` tab → tab. Redraws on strip render, tab size changes
 * (ResizeObserver), strip scroll (passive), window resize (throttled) and session create
 * (the strip re-renders), all coalesced into one animation frame that reads every rect
 * before it writes anything. Nothing is observed or drawn while no edge exists, below
 * 1024 px, or with the setting off.
 */
class LineageLines {
  private frame = 0;
  private edges: StripEdge[] = [];
  private tabs = new Map<number, HTMLElement>();
  private stripTabs: StripTab[] = [];
  private listening = false;
  private resizeTimer: number | null = null;
  private hovered: number | null = null;
  private readonly desktop = window.matchMedia(DESKTOP);
  private readonly observer = new ResizeObserver(() => this.schedule());
  private readonly onScroll = () => this.schedule();
  private readonly onResize = () => {
    if (this.resizeTimer !== null) return;
    this.resizeTimer = window.setTimeout(() => {
      this.resizeTimer = null;
      this.schedule();
    }, RESIZE_THROTTLE_MS);
  };

  /**
   * The strip keeps room below its tabs for the bridges it draws, so they never run over
   * the content under it (the quick prompt's heading, the list).
   */
  private readonly room: HTMLElement;

  constructor(
    private readonly scroller: HTMLElement,
    private readonly svg: SVGSVGElement,
  ) {
    this.room = svg.parentElement ?? scroller;
    this.desktop.addEventListener('change', () => this.refresh());
    document.addEventListener('warrant:settings', () => this.refresh());
    // htmx swapped new tabs in (live refresh after a create, update or delete)
    scroller.addEventListener('htmx:afterSettle', () => this.refresh());
    scroller.addEventListener('mouseover', (e) => this.hover(e.target));
    scroller.addEventListener('focusin', (e) => this.hover(e.target));
    scroller.addEventListener('mouseleave', () => this.hover(null));
    scroller.addEventListener('focusout', () => this.hover(null));
    this.refresh();
  }

  private enabled(): boolean {
    return setting('lineageLines') && this.desktop.matches;
  }

  /** Re-reads the strip's structure (after a render or a settings change). */
  refresh(): void {
    let elements = [...this.scroller.querySelectorAll<HTMLElement>('[data-tab-id]')];
    const tabOf = (el: HTMLElement): StripTab => ({ id: Number(el.dataset.tabId), parentId: el.dataset.parentId ? Number(el.dataset.parentId) : null });
    elements = this.applyOrder(elements, tabOf);
    this.tabs = new Map(elements.map((el) => [Number(el.dataset.tabId), el]));
    this.stripTabs = elements.map(tabOf);
    this.applyTint();
    this.edges = this.enabled() ? lineageEdges(this.stripTabs) : [];
    this.observer.disconnect();
    if (this.edges.length > 0) {
      this.observer.observe(this.scroller);
      for (const el of elements) this.observer.observe(el);
      if (!this.listening) {
        this.scroller.addEventListener('scroll', this.onScroll, { passive: true });
        window.addEventListener('resize', this.onResize, { passive: true });
        this.listening = true;
      }
    } else if (this.listening) {
      this.scroller.removeEventListener('scroll', this.onScroll);
      window.removeEventListener('resize', this.onResize);
      this.listening = false;
    }
    this.schedule();
  }

  /** Optional extra: children right after their parent (else the server's order, by id). */
  private applyOrder(elements: HTMLElement[], tabOf: (el: HTMLElement) => StripTab): HTMLElement[] {
    const byId = new Map(elements.map((el) => [Number(el.dataset.tabId), el]));
    const wanted = setting('orderChildren') ? orderChildrenAfterParents(elements.map(tabOf)) : [...byId.keys()].sort((a, b) => a - b);
    const current = elements.map((el) => Number(el.dataset.tabId));
    if (wanted.every((id, i) => current[i] === id)) return elements;
    const ordered = wanted.map((id) => byId.get(id)!);
    for (const el of ordered) this.scroller.appendChild(el);
    return ordered;
  }

  /** Optional extra: a child takes a faded tint of its parent's tab colour. */
  private applyTint(): void {
    const tint = setting('tintChildren');
    for (const t of this.stripTabs) {
      const el = this.tabs.get(t.id)!;
      const parent = t.parentId === null ? undefined : this.tabs.get(t.parentId);
      if (tint && parent?.dataset.hue) el.dataset.tint = parent.dataset.hue;
      else delete el.dataset.tint;
    }
  }

  schedule(): void {
    if (this.frame) return;
    this.frame = window.requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private draw(): void {
    if (this.edges.length === 0 || !this.enabled()) {
      if (this.svg.firstChild) this.svg.replaceChildren();
      this.room.style.removeProperty('padding-bottom');
      return;
    }
    // read: every rect first …
    const origin = this.svg.getBoundingClientRect();
    const strip = relative(this.scroller.getBoundingClientRect(), origin);
    const rects = new Map<number, Rect>();
    for (const e of this.edges) {
      for (const id of [e.parentId, e.childId]) {
        if (!rects.has(id)) {
          const el = this.tabs.get(id);
          rects.set(id, el && el.isConnected ? relative(el.getBoundingClientRect(), origin) : NO_RECT);
        }
      }
    }
    const drawn = [];
    let lowest = strip.bottom;
    for (const e of this.edges) {
      const path = lineagePath(rects.get(e.parentId)!, rects.get(e.childId)!, strip, e.depth);
      if (!path) continue;
      drawn.push({ e, path, working: this.tabs.get(e.childId)?.dataset.status === 'running' });
      const yc = Number(path.d.split(/[ ,]+/)[5]);
      lowest = Math.max(lowest, bridgeBottom(path.y1, yc, path.y2));
    }
    const room = drawn.length === 0 ? 0 : Math.ceil(lowest - strip.bottom + BRIDGE_MARGIN_PX);
    // … then write, once
    const nodes: SVGElement[] = [];
    for (const { e, path, working } of drawn) {
      const glow = document.createElementNS(SVG_NS, 'path');
      glow.setAttribute('class', 'lineage-glow');
      glow.setAttribute('d', path.d);
      const line = document.createElementNS(SVG_NS, 'path');
      line.setAttribute('class', working ? 'lineage-line working' : 'lineage-line');
      line.setAttribute('d', path.d);
      line.setAttribute('data-parent-tab', String(e.parentId));
      line.setAttribute('data-child-tab', String(e.childId));
      const end = document.createElementNS(SVG_NS, 'circle');
      end.setAttribute('class', 'lineage-end');
      end.setAttribute('cx', String(path.x2));
      end.setAttribute('cy', String(path.y2));
      end.setAttribute('r', working ? '4.5' : '3.5');
      end.setAttribute('data-child-tab', String(e.childId));
      nodes.push(glow, line, end);
    }
    this.svg.replaceChildren(...nodes);
    if (room > 0) this.room.style.paddingBottom = `${room}px`;
    else this.room.style.removeProperty('padding-bottom');
    this.paintHover();
  }

  private hover(target: EventTarget | null): void {
    const tab = target instanceof Element ? target.closest<HTMLElement>('[data-tab-id]') : null;
    const id = tab ? Number(tab.dataset.tabId) : null;
    if (id === this.hovered) return;
    this.hovered = id;
    this.paintHover();
  }

  /** Optional extra: hovering a tab dims unrelated lines and brightens its subtree. */
  private paintHover(): void {
    const on = setting('hoverHighlight') && this.hovered !== null;
    const subtree = on ? subtreeOf(this.stripTabs, this.hovered!) : null;
    for (const el of this.svg.querySelectorAll<SVGElement>('.lineage-line, .lineage-end')) {
      const child = Number(el.getAttribute('data-child-tab'));
      const parent = Number(el.getAttribute('data-parent-tab') ?? NaN);
      const inside = subtree !== null && subtree.has(child) && (Number.isNaN(parent) || subtree.has(parent));
      el.classList.toggle('is-bright', subtree !== null && inside);
      el.classList.toggle('is-dim', subtree !== null && !inside);
    }
  }
}

function initStrip(): void {
  const scroller = document.querySelector<HTMLElement>('[data-strip-scroller]');
  const svg = document.querySelector<SVGSVGElement>('[data-lineage-layer]');
  if (scroller && svg) new LineageLines(scroller, svg);
}

// ---------------------------------------------------------------- live events

/** The session ids an event concerns, and the parents of sessions it concerns. */
function concerned(type: string, data: string): { ids: Set<string>; parents: Set<string>; all: boolean } {
  const ids = new Set<string>();
  const parents = new Set<string>();
  if (type === 'resync') return { ids, parents, all: true };
  try {
    const p = JSON.parse(data) as Record<string, unknown>;
    const session = p.session as { id?: unknown; lineage_parent_id?: unknown } | undefined;
    for (const v of [session?.id, p.id, p.session_id, p.source_session_id, p.target_session_id]) if (typeof v === 'number') ids.add(String(v));
    for (const list of [p.ids, p.session_ids]) if (Array.isArray(list)) for (const v of list) if (typeof v === 'number') ids.add(String(v));
    if (typeof session?.lineage_parent_id === 'number') parents.add(String(session.lineage_parent_id));
  } catch {
    return { ids, parents, all: true };
  }
  return { ids, parents, all: false };
}

/** Triggers `warrant:watched` on regions that watch a concerned session (they re-fetch, coalesced). */
function routeLiveEvent(type: string, data: string): void {
  const api = htmx();
  if (!api) return;
  const { ids, parents, all } = concerned(type, data);
  for (const el of document.querySelectorAll<HTMLElement>('[data-watch-sessions], [data-watch-children-of]')) {
    const watched = (el.dataset.watchSessions ?? '').split(/\s+/);
    const childrenOf = (el.dataset.watchChildrenOf ?? '').split(/\s+/);
    if (all || watched.some((id) => ids.has(id)) || childrenOf.some((id) => parents.has(id))) api.trigger(el, 'warrant:watched');
  }
}

/**
 * The htmx SSE extension owns the connection (`sse-connect`); this hands it the source it reads.
 * With SharedWorker, every tab shares one stream (SharedLiveSource); without it, each tab opens
 * its own EventSource, which resumes from the last event id it saw when the extension has to
 * re-create it. Either way events also reach the regions that watch the sessions they concern.
 */
function initLiveRouting(): void {
  const api = htmx();
  if (!api) return;
  // the page's data is as of this live event id: the stream starts after it, so what changed
  // between rendering and connecting still arrives
  let lastEventId: string | null = pageLiveSince();
  api.createEventSource = (url: string) => {
    const port = sharedWorkerPort();
    if (port) {
      const shared = new SharedLiveSource(url, port, panelsOf(url), pageLiveSince(), (type, data) => {
        if (EVENT_TYPES.includes(type)) routeLiveEvent(type, data);
      });
      holdPanelsUntilLoaded(shared, url);
      return shared as unknown as EventSource;
    }
    const resume = lastEventId ? `${url}${url.includes('?') ? '&' : '?'}last_event_id=${encodeURIComponent(lastEventId)}` : url;
    const source = new EventSource(resume, { withCredentials: true });
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (event) => {
        const message = event as MessageEvent<string>;
        if (message.lastEventId) lastEventId = message.lastEventId;
        routeLiveEvent(type, message.data);
      });
    }
    holdPanelsUntilLoaded(source, url);
    return source;
  };
}

// ---------------------------------------------------------------- chat bubble

/**
 * The chat bubble (components/chat-bubble.tsx) is a `<details>`: it works without this. This
 * adds Escape to close it (focus returns to its button), focus into the text box on open, and
 * which page it was opened on — the server composes the page context from that path.
 */
function initChatBubble(): void {
  const bubble = document.querySelector<HTMLDetailsElement>('details[data-chat-bubble]');
  if (!bubble) return;
  for (const page of document.querySelectorAll<HTMLInputElement>('input[data-chat-page]')) if (!page.value) page.value = location.pathname;
  bubble.addEventListener('toggle', () => {
    if (bubble.open) bubble.querySelector('textarea')?.focus();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !bubble.open) return;
    bubble.open = false;
    bubble.querySelector('summary')?.focus();
  });
}

/**
 * The header's popovers (the phone's Menu, the device Settings) are `<details>` too: Escape
 * closes the innermost one that holds the focus, and the focus returns to its button.
 */
function initHeaderPopovers(): void {
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !(document.activeElement instanceof Element)) return;
    const open = document.activeElement.closest<HTMLDetailsElement>('.site-header details[open]');
    if (!open) return;
    open.open = false;
    open.querySelector('summary')?.focus();
  });
}

// Module scripts run after the document is parsed and before DOMContentLoaded, after htmx
// and before its SSE extension (document order): the wrapper is in place before it connects.
initLiveRouting();
initSettings();
initTheme();
initStrip();
initChatBubble();
initHeaderPopovers();
