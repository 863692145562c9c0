import type { SessionView, ActorView } from '../app/views.js';
import { HIDDEN_SESSION_LABEL } from '../core/actors.js';
import { sanitizeInline } from './sanitize.js';

export function actorText(actor: ActorView | null, basis: string | null): string {
  if (!actor) return 'none recorded (no evidence)';
  const name =
    actor.kind === 'human'
      ? `${sanitizeInline(actor.displayName ?? actor.ref ?? 'unknown human')}${actor.ref ? ` (${sanitizeInline(actor.ref)})` : ''}`
      : actor.kind === 'session'
        ? actor.ref === null
          ? HIDDEN_SESSION_LABEL
          : `session #${actor.ref}`
        : actor.kind === 'client'
          ? `client ${sanitizeInline(actor.ref ?? '')}`
          : actor.kind;
  return `${name}${basis ? ` — ${basis}` : ''}`;
}

/** The status block of a session, in the markdown every text surface shares (MCP, CLI). */
export function renderSessionStatus(s: SessionView): string {
  const lines = [
    `## #${s.id} ${sanitizeInline(s.title ?? '(untitled)')}`,
    '',
    `- status: ${s.status}`,
    `- uid: ${s.uid}`,
    `- genesis · class: ${s.genesis} · ${s.schedulingClass}`,
    `- owner: ${s.owner ? sanitizeInline(s.owner) : 'none'}`,
    `- agent root: ${s.agentRoot ? sanitizeInline(s.agentRoot) : 'none'}`,
    `- parent: ${s.lineageParentId !== null ? `#${s.lineageParentId}${s.parentBasis ? ` — ${s.parentBasis}` : ''}` : 'none'}`,
    `- creator: ${actorText(s.creator, s.creatorBasis)}`,
    `- cause: ${actorText(s.cause, s.causeBasis)}`,
    `- activation: ${s.activation}`,
    `- created: ${s.createdAt}`,
  ];
  if (s.model) lines.push(`- model: ${sanitizeInline(s.model)}`);
  if (s.starred) lines.push('- starred');
  if (s.messaging !== 'full') lines.push(`- messaging: ${s.messaging}`);
  return lines.join('\n');
}

/** One line per session for lists. */
export function renderSessionLine(s: SessionView): string {
  const parent = s.lineageParentId !== null ? ` · spawned by #${s.lineageParentId}` : '';
  return `- #${s.id} [${s.status}] ${sanitizeInline(s.title ?? '(untitled)')} {${s.genesis} · ${s.schedulingClass}}${parent}`;
}

/**
 * The paging line of a rendering no surface words for itself (REST's `format=markdown`, which
 * the CLI prints and any client may read): the cursor and the parameter's name, not a flag.
 */
export const neutralPagingHint = (cursor: string): string => `next cursor: ${cursor} (send it as \`cursor\`)`;

/** Where the next page is, in the words of the surface that asks (a tool call on MCP). */
export function morePages(nextCursor: string | null, pagingHint: (cursor: string) => string): string[] {
  return nextCursor ? [`More: ${pagingHint(nextCursor)}`] : [];
}

export function renderSessionList(
  sessions: readonly SessionView[],
  nextCursor: string | null,
  pagingHint: (cursor: string) => string = neutralPagingHint,
): string {
  if (sessions.length === 0) return 'No sessions.';
  return [sessions.map(renderSessionLine).join('\n'), ...morePages(nextCursor, pagingHint)].join('\n\n');
}
