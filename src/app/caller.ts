import type { ActorIdentity } from '../core/actors.js';
import type { ActBasis } from '../core/basis.js';
import { WarrantError } from '../core/errors.js';
import type { PrincipalKind } from '../core/permissions.js';

/** Who presented which credential. Established by authentication, never by a request body. */
export type Principal =
  | { kind: 'fleet' }
  | { kind: 'session'; sessionId: number; activation: number }
  | { kind: 'human'; userId: number; userKey: string; isAdmin: boolean }
  | { kind: 'client'; name: string }
  /**
   * a runner's witness credential (docs/design/terminal-channel.md): good only for its own
   * session and activation's `/terminal/*` reports, made for the human who minted it
   */
  | { kind: 'witness'; sessionId: number; activation: number; userId: number; userKey: string }
  /** the host CLI against the store, and Warrant's own housekeeping */
  | { kind: 'system' };

/** The surface the act came through; MCP turns a human's acts into `delegated` ones (docs/concepts.md). */
export type Surface = 'rest' | 'mcp' | 'web' | 'slack' | 'host-cli' | 'housekeeping';

/** `via` of deletion records and capture channels: informational, like a user agent. */
export type Via = 'rest' | 'web_ui' | 'cli' | 'mcp' | 'slack' | 'housekeeping';

export interface Caller {
  principal: Principal;
  credentialId: number | null;
  surface: Surface;
  via: Via;
}

/** The column of docs/concepts.md's table this caller is judged by. */
export function permissionKind(caller: Caller): PrincipalKind {
  const p = caller.principal;
  switch (p.kind) {
    case 'human':
      return p.isAdmin ? 'admin' : 'human';
    case 'system':
      return 'admin';
    case 'witness':
      // never judged by the table: authentication admits it to the terminal routes only
      throw new WarrantError('witness-credential-scope', WITNESS_SCOPE_MESSAGE);
    default:
      return p.kind;
  }
}

export const WITNESS_SCOPE_MESSAGE =
  "A witness credential (wrt_t_) can only report its own run's terminal turns, witnessed prompts and closing report (POST /api/v1/sessions/{ref}/terminal/turns, …/prompts, …/close).";

/** The actor a credential proves, with the basis of acts made with it. */
export function callerActor(caller: Caller): { actor: ActorIdentity; basis: ActBasis } {
  const p = caller.principal;
  switch (p.kind) {
    case 'fleet':
      return { actor: { kind: 'fleet' }, basis: 'authenticated' };
    case 'session':
      return { actor: { kind: 'session', sessionId: p.sessionId }, basis: 'authenticated' };
    case 'human':
      // docs/concepts.md: a model holding a human's token acts with the human's responsibility,
      // not as the human's own act.
      return { actor: { kind: 'human', userId: p.userId }, basis: caller.surface === 'mcp' ? 'delegated' : 'authenticated' };
    case 'client':
      return { actor: { kind: 'client', name: p.name }, basis: 'authenticated' };
    case 'system':
      return { actor: { kind: 'system' }, basis: 'authenticated' };
    case 'witness':
      return { actor: { kind: 'human', userId: p.userId }, basis: 'authenticated' };
  }
}

export function systemCaller(via: Via = 'housekeeping'): Caller {
  return { principal: { kind: 'system' }, credentialId: null, surface: via === 'cli' ? 'host-cli' : 'housekeeping', via };
}
