/** docs/concepts.md: who did something. Rows are permanent; names resolve at read time. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the list is the one source of the type
const ACTOR_KINDS = ['human', 'session', 'system', 'client', 'fleet'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** An actor identity before it has an actor row. `ref` is the user id, session id or client name. */
export type ActorIdentity =
  { kind: 'human'; userId: number } | { kind: 'session'; sessionId: number } | { kind: 'client'; name: string } | { kind: 'system' } | { kind: 'fleet' };

export function actorRefString(actor: ActorIdentity): string {
  switch (actor.kind) {
    case 'human':
      return String(actor.userId);
    case 'session':
      return String(actor.sessionId);
    case 'client':
      return actor.name;
    case 'system':
    case 'fleet':
      return '';
  }
}

/** How every surface names a session actor its reader may not see (docs/design/sessions.md, "Multi-user scoping"). */
export const HIDDEN_SESSION_LABEL = 'a session you cannot see';
