/**
 * docs/concepts.md — the one table, enforced in one place (app/authorize.ts calls
 * `permissionFor`). "visible" means: a session the caller may see under multi-user scoping;
 * an invisible session is a 404 before this table is consulted.
 */
export const PRINCIPAL_KINDS = ['fleet', 'session', 'human', 'client', 'admin'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

export const ACTS = [
  'read',
  'create',
  'attach',
  'patch',
  'patch-parent',
  'deliver',
  'lifecycle',
  'delete',
  'remove-uncle',
  'runtime',
  'runtime-report',
  'create-runtime-child',
  'send-message',
  'metrics',
  'admin',
] as const;
export type Act = (typeof ACTS)[number];

/**
 * - `yes`: allowed (acts with no target session, or any visible target)
 * - `self`: only the caller's own session
 * - `self-or-descendant`: the caller's own session or one below it over spawn edges
 * - `self-or-runtime-child`: the caller's own session, or a child its runtime created for a
 *   subagent or nested agent (`POST /sessions/{ref}/children`) — never any other child
 * - `declared-only`: allowed only as a declared acting session, never for replies (05)
 * - `no`: refused
 */
type Permission = 'yes' | 'self' | 'self-or-descendant' | 'self-or-runtime-child' | 'declared-only' | 'no';

export const PERMISSIONS: Record<Act, Record<PrincipalKind, Permission>> = {
  read: { fleet: 'yes', session: 'yes', human: 'yes', client: 'yes', admin: 'yes' },
  create: { fleet: 'yes', session: 'yes', human: 'yes', client: 'yes', admin: 'yes' },
  attach: { fleet: 'yes', session: 'no', human: 'yes', client: 'no', admin: 'yes' },
  patch: { fleet: 'yes', session: 'self-or-descendant', human: 'yes', client: 'no', admin: 'yes' },
  'patch-parent': { fleet: 'no', session: 'no', human: 'yes', client: 'no', admin: 'yes' },
  deliver: { fleet: 'yes', session: 'yes', human: 'yes', client: 'yes', admin: 'yes' },
  lifecycle: { fleet: 'yes', session: 'self-or-descendant', human: 'yes', client: 'yes', admin: 'yes' },
  delete: { fleet: 'no', session: 'no', human: 'yes', client: 'no', admin: 'yes' },
  'remove-uncle': { fleet: 'yes', session: 'no', human: 'yes', client: 'no', admin: 'yes' },
  runtime: { fleet: 'yes', session: 'self', human: 'no', client: 'no', admin: 'yes' },
  // the runtime's reports (state, conversation, transcript): its runtime children's too (docs/design/agent-runtimes.md)
  'runtime-report': { fleet: 'yes', session: 'self-or-runtime-child', human: 'no', client: 'no', admin: 'yes' },
  // only a runtime creates its own subagents' sessions, with its own token
  'create-runtime-child': { fleet: 'no', session: 'self', human: 'no', client: 'no', admin: 'no' },
  'send-message': { fleet: 'declared-only', session: 'yes', human: 'no', client: 'no', admin: 'no' },
  // a node's Prometheus metrics (docs/operations.md): the operator's credentials
  metrics: { fleet: 'yes', session: 'no', human: 'no', client: 'no', admin: 'yes' },
  admin: { fleet: 'no', session: 'no', human: 'no', client: 'no', admin: 'yes' },
};

const ACT_DESCRIPTIONS: Record<Act, string> = {
  read: 'read sessions',
  create: 'create a session',
  attach: 'attach a runtime',
  patch: 'change this session',
  'patch-parent': 'correct a parent',
  deliver: 'deliver to this session',
  lifecycle: 'change the lifecycle of this session',
  delete: 'delete a session',
  'remove-uncle': 'remove an uncle edge',
  runtime: 'act as the runtime of this session',
  'runtime-report': 'report runtime state, the conversation or the transcript for this session',
  'create-runtime-child': 'create a subagent or nested-agent session under this session',
  'send-message': 'send agent messages',
  metrics: "read this node's metrics",
  admin: 'administer the roster, tokens and settings',
};

/** What the caller is to the target session, computed by the app layer from the store. */
export interface TargetRelation {
  isSelf: boolean;
  isDescendant: boolean;
  /** the target is a child the caller's runtime created for a subagent or nested agent */
  isRuntimeChild?: boolean;
}

type PermissionVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Whether judging `act` for `kind` depends on the target being below the caller over spawn
 * edges: only then is the (recursive) ancestry read worth a query.
 */
export function dependsOnDescent(kind: PrincipalKind, act: Act): boolean {
  return PERMISSIONS[act][kind] === 'self-or-descendant';
}

/**
 * @example permissionFor('session', 'delete', {isSelf:true, isDescendant:false}) // {allowed:false, …}
 */
export function permissionFor(kind: PrincipalKind, act: Act, relation: TargetRelation | null, declaredActingSession = false): PermissionVerdict {
  const rule = PERMISSIONS[act][kind];
  const what = ACT_DESCRIPTIONS[act];
  switch (rule) {
    case 'yes':
      return { allowed: true };
    case 'no':
      return { allowed: false, reason: `a ${kind} credential may not ${what}` };
    case 'self':
      return relation?.isSelf ? { allowed: true } : { allowed: false, reason: `a session token may only ${what} for its own session` };
    case 'self-or-descendant':
      return relation && (relation.isSelf || relation.isDescendant)
        ? { allowed: true }
        : { allowed: false, reason: `a session token may only ${what} for its own session and its descendants` };
    case 'self-or-runtime-child':
      return relation && (relation.isSelf || relation.isRuntimeChild === true)
        ? { allowed: true }
        : { allowed: false, reason: `a session token may only ${what} for its own session and the subagent sessions its runtime created` };
    case 'declared-only':
      return declaredActingSession ? { allowed: true } : { allowed: false, reason: `a ${kind} credential may ${what} only as a declared acting session` };
  }
}
