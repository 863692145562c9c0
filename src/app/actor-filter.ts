import { invalidRequest } from '../core/errors.js';
import { isValidClientName, isValidUserKey } from '../core/tokens.js';
import type { Executor } from '../store/dialect/dialect.js';
import { findUserByKey } from '../store/users-repo.js';
import { findActorId } from '../store/actors-repo.js';
import { resolveRef, type Visibility } from './access.js';
import type { AppContext } from './context.js';

const ACTOR_FILTER_FORMS = 'fleet, system, session:<id>, client:<name>, human:<key> or a roster key';

/**
 * An actor filter (`actor`, `cause`, `caused_by`): `fleet`, `system`, `session:<id>`,
 * `client:<name>`, `human:<key>` or a bare roster key. A well-formed filter naming nobody
 * matches nothing (looked, none there): null; a malformed one is refused, naming `field`.
 */
export async function actorFilterIdentity(db: Executor, actor: string, field = 'actor'): Promise<{ kind: string; ref: string } | null> {
  const a = actor.trim();
  if (a === 'fleet' || a === 'system') return { kind: a, ref: '' };
  const m = /^(session|client|human):(.*)$/.exec(a);
  const [kind, value] = m ? [m[1]!, m[2]!] : ['human', a];
  if (kind === 'session') {
    const id = value.replace(/^#/, '');
    if (!/^[0-9]{1,15}$/.test(id)) throw invalidRequest(field, 'session:<id> needs a numeric session id.');
    return { kind, ref: String(Number(id)) };
  }
  if (kind === 'client') {
    if (!isValidClientName(value)) throw invalidRequest(field, `${JSON.stringify(value)} is not a client name.`);
    return { kind, ref: value };
  }
  if (!isValidUserKey(value)) throw invalidRequest(field, `expected ${ACTOR_FILTER_FORMS}.`);
  const user = await findUserByKey(db, value);
  return user ? { kind: 'human', ref: String(user.id) } : null;
}

/**
 * The actor row id a filter names, or null when it names nobody who ever acted — or a session
 * the reader may not see (docs/concepts.md: an invisible session answers exactly like a
 * missing one, so a filter cannot tell that it acted).
 */
export async function actorIdOfFilter(db: Executor, ctx: AppContext, visibility: Visibility, actor: string, field = 'actor'): Promise<number | null> {
  const identity = await actorFilterIdentity(db, actor, field);
  if (!identity) return null;
  if (identity.kind === 'session' && !(await resolveRef(db, ctx, visibility, identity.ref, { allowPrefix: false })).session) return null;
  return findActorId(db, identity);
}
