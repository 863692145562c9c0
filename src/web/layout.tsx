import type { Child } from 'hono/jsx';
import type { WebIdentity } from '../app/users/index.js';
import { CSRF_FIELD } from './csrf.js';
import { ChatBubble } from './components/chat-bubble.js';

/**
 * htmx settings: no eval (the CSP forbids it anyway), no injected styles, and error
 * responses are swapped so a refusal is shown where the action was taken.
 */
const HTMX_CONFIG = JSON.stringify({
  allowEval: false,
  allowScriptTags: false,
  includeIndicatorStyles: false,
  selfRequestsOnly: true,
  responseHandling: [
    { code: '204', swap: false },
    { code: '[23]..', swap: true },
    { code: '[45]..', swap: true, error: true },
  ],
});

type NavItem = 'sessions' | 'new' | 'roster' | null;

interface LayoutProps {
  title: string;
  identity: WebIdentity | null;
  csrf: string;
  nav?: NavItem;
  /**
   * open the live-event stream for this page (the strip, the list, a session page), resuming
   * after this live event id: the newest one before the page read its data, so whatever changes
   * between rendering and connecting still arrives
   */
  liveSince?: number;
  /** the session whose provenance panel the stream keeps live (a session page) */
  livePanel?: number;
  children?: Child;
}

export function CsrfField(props: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={props.token} />;
}

/** A setting's checkbox, its label, and (when it needs one) a description the checkbox is described by. */
function SettingCheck(props: { name: string; label: string; hint?: string }) {
  const id = `setting-${props.name}`;
  return (
    <div class="check">
      <input type="checkbox" id={id} data-setting={props.name} aria-describedby={props.hint ? `${id}-hint` : undefined} />
      <div class="check-text">
        <label for={id}>{props.label}</label>
        {props.hint && (
          <p class="hint" id={`${id}-hint`}>
            {props.hint}
          </p>
        )}
      </div>
    </div>
  );
}

function DeviceSettings() {
  return (
    <details class="settings">
      <summary class="button">Settings</summary>
      <div class="settings-panel">
        <fieldset>
          <legend>This device</legend>
          <SettingCheck name="lineageLines" label="Lineage lines" hint="Lines from each tab to the tab that spawned it (desktop widths)." />
          <SettingCheck name="orderChildren" label="Order children right after their parent" />
          <SettingCheck name="hoverHighlight" label="Hovering a tab dims unrelated lines and brightens its subtree" />
          <SettingCheck name="tintChildren" label="Children take a faded tint of their parent’s colour" />
        </fieldset>
      </div>
    </details>
  );
}

export function Layout(p: LayoutProps) {
  const user = p.identity?.user ?? null;
  const current = (item: NavItem) => (p.nav === item ? { 'aria-current': 'page' } : {});
  const tools = (
    <div class="header-tools">
      {user && <span class="who">Signed in as {user.displayName}</span>}
      <button type="button" data-theme-toggle aria-label="Switch between light and dark theme">
        Theme
      </button>
      {user && <DeviceSettings />}
      {user && (
        <form method="post" action="/sign-out">
          <CsrfField token={p.csrf} />
          <button type="submit">Sign out</button>
        </form>
      )}
    </div>
  );
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content={HTMX_CONFIG} />
        <title>{`${p.title} · Warrant`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/assets/styles.css" />
        <script src="/assets/theme-init.js"></script>
        {/* document order matters: htmx, then our module (it wraps the SSE connection), then the extension */}
        <script src="/assets/htmx.min.js" defer></script>
        <script type="module" src="/assets/warrant.js"></script>
        <script src="/assets/sse.js" defer></script>
      </head>
      <body hx-headers={p.csrf ? JSON.stringify({ 'X-CSRF-Token': p.csrf }) : undefined}>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="site-header">
          <a class="brand" href="/">
            Warrant
          </a>
          {user && (
            <nav class="site-nav" aria-label="Main">
              <a href="/" {...current('sessions')}>
                Sessions
              </a>
              <a href="/sessions/new" {...current('new')}>
                New<span class="nav-long"> session</span>
              </a>
              {user.isAdmin && (
                <a href="/supervisor/users" {...current('roster')}>
                  Roster
                </a>
              )}
            </nav>
          )}
          {/* on a phone a signed-in person's tools fold into a menu so the header stays one row; from 641 px they show inline */}
          {user ? (
            <details class="header-menu">
              <summary class="button">Menu</summary>
              {tools}
            </details>
          ) : (
            <div class="header-menu">{tools}</div>
          )}
        </header>
        {/* floats at the bottom right on wide screens; on a phone it sits in the flow under the header, covering nothing */}
        {user && p.csrf && <ChatBubble csrf={p.csrf} />}
        {p.liveSince !== undefined ? (
          <main
            id="main"
            tabindex={-1}
            hx-ext="sse"
            data-live-user={user ? String(user.id) : undefined}
            data-live-since={String(p.liveSince)}
            sse-connect={p.livePanel === undefined ? '/ui/events' : `/ui/events?panel=${p.livePanel}`}
          >
            {p.children}
          </main>
        ) : (
          <main id="main" tabindex={-1}>
            {p.children}
          </main>
        )}
      </body>
    </html>
  );
}
