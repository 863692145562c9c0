import type { ActorView } from '../../app/sessions/index.js';
import { HIDDEN_SESSION_LABEL } from '../../core/actors.js';

/** Small shared renderings: times, statuses, actors with their basis, genesis pills. */

export function Time(props: { iso: string }) {
  const d = new Date(props.iso);
  const label = Number.isNaN(d.getTime()) ? props.iso : d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  return <time datetime={props.iso}>{label}</time>;
}

export function Status(props: { status: string }) {
  return <span class={`status status-${props.status}`}>{props.status}</span>;
}

export function GenesisPill(props: { genesis: string; schedulingClass: string }) {
  return (
    <span class="pill" title="genesis · scheduling class">
      {props.genesis} · {props.schedulingClass}
    </span>
  );
}

export function AgentRootPill(props: { agentRoot: string | null }) {
  return props.agentRoot ? <span class="pill">{props.agentRoot}</span> : null;
}

const BASIS_EXPLAINED: Record<string, string> = {
  authenticated: 'proved with its own credential',
  delegated: 'a model acted with a human’s credential: the human’s responsibility, not their words',
  declared: 'claimed by the caller; nothing verified it',
  legacy: 'derived from the legacy router key',
  corrected: 'corrected by an operator',
};

/** docs/concepts.md: only `authenticated` is evidence of the actor's own act; the rest say what they are. */
export function Basis(props: { basis: string | null }) {
  if (!props.basis) return <span class="pill">no basis</span>;
  return (
    <span class={`pill basis-${props.basis}`} title={BASIS_EXPLAINED[props.basis] ?? props.basis}>
      {props.basis}
    </span>
  );
}

function actorLabel(actor: ActorView | null): string {
  if (!actor) return 'not attributed';
  switch (actor.kind) {
    case 'human':
      return actor.displayName && actor.ref && actor.displayName !== actor.ref
        ? `${actor.displayName} (${actor.ref})`
        : (actor.ref ?? actor.displayName ?? 'a removed roster human');
    case 'session':
      if (actor.ref === null) return HIDDEN_SESSION_LABEL;
      return `session #${actor.ref}${actor.displayName ? ` “${actor.displayName}”` : ''}`;
    case 'client':
      return `client ${actor.ref}`;
    case 'system':
      return 'Warrant (system)';
    case 'fleet':
      return 'the fleet key (a machine, unknown which)';
    default:
      return String(actor.kind);
  }
}

export function Actor(props: { actor: ActorView | null }) {
  const a = props.actor;
  if (a?.kind === 'session' && a.ref) {
    return (
      <span>
        session <a href={`/sessions/${a.ref}`}>#{a.ref}</a>
        {a.displayName ? ` “${a.displayName}”` : ''}
      </span>
    );
  }
  return <span>{actorLabel(a)}</span>;
}

export function sessionTitle(title: string | null): string {
  return title && title.trim() ? title : '(untitled)';
}
