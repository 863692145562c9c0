import { detailEntries } from './event-details.js';
import type { DeletionView } from '../app/sessions/delete-session.js';
import type { EventView } from '../app/sessions/read-sessions.js';
import type { ActorView } from '../app/views.js';
import { sanitizeInline } from './sanitize.js';
import { actorText, neutralPagingHint } from './session-markdown.js';

/**
 * Markdown for the attributed timeline and deletion records (docs/attribution.md), shared by the CLI
 * (`format=markdown`) and any text surface. Every basis is printed beside its actor: only
 * `authenticated` is evidence of the actor's own act (docs/concepts.md).
 */
type Attributed = (ActorView & { basis: string | null }) | null;

function who(label: string, a: Attributed): string {
  return a ? `${label} ${actorText(a, a.basis)}` : `${label} nobody recorded (unattributed)`;
}

function detailsText(details: Record<string, unknown>): string {
  const parts = detailEntries(details).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return parts.length ? ` · ${sanitizeInline(parts.join(', '))}` : '';
}

function renderEventLine(e: EventView): string {
  const attribution = e.actor === null && e.cause === null ? 'unattributed (runtime state)' : `${who('by', e.actor)}; ${who('for', e.cause)}`;
  return `- ${e.seq} · ${e.createdAt} · **${e.type}** — ${attribution}${detailsText(e.details)}`;
}

export function renderEvents(sessionId: number, events: readonly EventView[], nextCursor: string | null): string {
  if (events.length === 0) return `No events for session #${sessionId}${nextCursor === null ? '' : ' on this page'}.`;
  const more = nextCursor ? `\n\nMore: ${neutralPagingHint(nextCursor)}` : '';
  return `## Timeline of #${sessionId}\n\n${events.map(renderEventLine).join('\n')}${more}`;
}

function renderDeletionLine(d: DeletionView): string {
  const affected = d.affected.length === 0 ? 'nothing else affected' : `affected: ${d.affected.map((a) => `${a.kind} #${a.id} ${a.action}`).join(', ')}`;
  return [
    `- #${d.sessionId} ${sanitizeInline(d.lastTitle ?? '(untitled)')} (uid ${d.sessionUid}) — deleted ${d.deletedAt}`,
    `  ${who('by', d.actor)}; ${who('for', d.cause)}; via ${d.via}${d.credentialId !== null ? ` (credential ${d.credentialId})` : ''}`,
    `  owner: ${d.owner ? sanitizeInline(d.owner) : 'none'} · lineage parent: ${d.lineageParentId !== null ? `#${d.lineageParentId}` : 'none'} · ${d.eventCount} events and ${d.humanMessageCount} human messages went with it · ${affected}`,
  ].join('\n');
}

export function renderDeletions(deletions: readonly DeletionView[], nextCursor: string | null): string {
  if (deletions.length === 0) return 'No deletion records match.';
  const more = nextCursor ? `\n\nMore: ${neutralPagingHint(nextCursor)}` : '';
  return deletions.map(renderDeletionLine).join('\n') + more;
}

/** One event of the list across sessions: its session first, its credential after. */
function renderEventAcrossLine(e: EventView): string {
  const attribution = e.actor === null && e.cause === null ? 'unattributed (runtime state)' : `${who('by', e.actor)}; ${who('for', e.cause)}`;
  const credential = e.credentialId !== null ? ` · credential ${e.credentialId}` : '';
  return `- #${e.sessionId} seq ${e.seq} · ${e.createdAt} · **${e.type}** — ${attribution}${credential}${detailsText(e.details)}`;
}

/**
 * `GET /api/v1/events` (the reverse question, docs/attribution.md): what an actor or a
 * credential did, newest first. `filters` names what was asked, so an empty page says of whom.
 */
export function renderEventsAcross(
  events: readonly EventView[],
  filters: string,
  nextCursor: string | null,
  pagingHint: (cursor: string) => string = (c) => `pass --cursor ${c}`,
): string {
  const more = nextCursor ? `\n\nMore: ${pagingHint(nextCursor)}` : '';
  if (events.length === 0) return `No events match ${sanitizeInline(filters)}${nextCursor === null ? '' : ' on this page'}.${more}`;
  return `## Events — ${sanitizeInline(filters)} (newest first)\n\n${events.map(renderEventAcrossLine).join('\n')}${more}`;
}

/** How the filters of the events list read in a heading: `actor alice · credential 12`. */
export function eventFiltersText(f: { actor?: string; cause?: string; credential?: number }): string {
  return (
    [
      f.actor !== undefined ? `actor ${f.actor}` : null,
      f.cause !== undefined ? `cause ${f.cause}` : null,
      f.credential !== undefined ? `credential ${f.credential}` : null,
    ]
      .filter((p): p is string => p !== null)
      .join(' · ') || 'every actor'
  );
}
