import { WarrantError } from '../core/errors.js';
import { isValidClientName, isValidUserKey } from '../core/tokens.js';
import { findTokenById, listTokens, revokeToken, type TokenRecord } from '../store/tokens-repo.js';
import { findUserByKey, insertUser, listUsers as listUserRows, updateUser, type UserRecord } from '../store/users-repo.js';
import type { Executor } from '../store/dialect/dialect.js';
import { authorize } from './access.js';
import { callerActor, type Caller } from './caller.js';
import type { AppContext } from './context.js';
import { generateToken, registerToken } from './credentials.js';
import { inWriteTx, type WriteScope } from './write-scope.js';
import { getSetting } from '../store/settings-repo.js';
import { changeSetting } from './settings.js';
import { SETTING_ADMIN_USER } from './bootstrap.js';
import { syncCoverage } from './human-messages/coverage-state.js';

/**
 * The roster (docs/human-messages.md): writable only by an admin — the host CLI or the supervisor pages.
 * No REST route for fleet, session or integration tokens and no MCP tool reaches it.
 */
interface UserInput {
  key: string;
  displayName?: string;
  email?: string | null;
  slackUserIds?: string[];
  notes?: string | null;
  isAdmin?: boolean;
}

/** A roster or token change, as the functions below describe it to `notify`. */
interface RosterChange {
  kind: string;
  user?: UserRecord;
  detail?: Record<string, unknown>;
}

/** `_change` says what changed at each call; nothing subscribes to it (coverage reads the store). */
async function notify(w: WriteScope, _change: RosterChange): Promise<void> {
  // every roster or token change may change a capture channel's state (docs/human-messages.md)
  await syncCoverage(w);
}

function normalizeSlackIds(ids: readonly string[] | undefined): string[] | undefined {
  if (ids === undefined) return undefined;
  const out = [...new Set(ids.map((s) => s.trim()).filter((s) => s !== ''))];
  for (const id of out) {
    if (!/^[UW][A-Z0-9]{2,20}$/.test(id)) {
      throw new WarrantError('invalid-request', `slack_user_ids: ${JSON.stringify(id)} is not a Slack user id (like U012ABCDEF).`, {
        details: { field: 'slack_user_ids' },
      });
    }
  }
  return out;
}

/** A Slack id belongs to at most one user (docs/human-messages.md): a collision is rejected, naming the holder. */
async function checkSlackIds(db: Executor, ids: readonly string[], exceptUserId: number | null): Promise<void> {
  if (ids.length === 0) return;
  for (const user of await listUserRows(db)) {
    if (user.id === exceptUserId || user.removedAt) continue;
    const clash = user.slackUserIds.find((s) => ids.includes(s));
    if (clash) {
      throw new WarrantError(
        'slack-id-taken',
        `Slack id ${clash} already belongs to ${user.key} (${user.displayName}); a Slack id maps to at most one person.`,
        {
          details: { slack_user_id: clash, user: user.key },
        },
      );
    }
  }
}

function requireKey(key: string): void {
  if (!isValidUserKey(key)) {
    throw new WarrantError('invalid-request', 'key: 1–64 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit.', {
      details: { field: 'key' },
    });
  }
}

export async function addUser(ctx: AppContext, caller: Caller, input: UserInput): Promise<UserRecord> {
  requireKey(input.key);
  const slack = normalizeSlackIds(input.slackUserIds) ?? [];
  return inWriteTx(ctx, async (w) => {
    await authorize(w.tx, ctx, caller, 'admin', null);
    return insertRosterUser(w, { ...input, slackUserIds: slack });
  });
}

/**
 * Adds a roster row inside the caller's transaction (the web UI's first-run page creates the
 * admin in the same transaction that consumes the setup code). The caller has authorized.
 */
export async function insertRosterUser(w: WriteScope, input: UserInput): Promise<UserRecord> {
  requireKey(input.key);
  const slack = normalizeSlackIds(input.slackUserIds) ?? [];
  if (await findUserByKey(w.tx, input.key)) throw new WarrantError('user-exists', `A roster user with the key ${input.key} exists already.`);
  await checkSlackIds(w.tx, slack, null);
  const id = await insertUser(w.tx, {
    key: input.key,
    displayName: input.displayName?.trim() || input.key,
    email: input.email ?? null,
    slackUserIds: slack,
    notes: input.notes ?? null,
    isAdmin: input.isAdmin ?? false,
    now: w.now,
  });
  await w.actorId({ kind: 'human', userId: id });
  const user = (await findUserByKey(w.tx, input.key))!;
  await notify(w, { kind: 'user_added', user });
  return user;
}

/** Lets other roster-adjacent use cases (web sign-in settings, passwords) log coverage changes. */
export async function notifyRosterChange(w: WriteScope, change: RosterChange): Promise<void> {
  await notify(w, change);
}

export async function editUser(
  ctx: AppContext,
  caller: Caller,
  key: string,
  changes: { displayName?: string; email?: string | null; slackUserIds?: string[]; notes?: string | null; isAdmin?: boolean },
): Promise<UserRecord> {
  const slack = normalizeSlackIds(changes.slackUserIds);
  return inWriteTx(ctx, async (w) => {
    await authorize(w.tx, ctx, caller, 'admin', null);
    const user = await findUserByKey(w.tx, key);
    if (!user) throw new WarrantError('user-not-found', `No roster user has the key ${key}.`);
    if (slack) await checkSlackIds(w.tx, slack, user.id);
    await updateUser(w.tx, user.id, { ...changes, ...(slack ? { slackUserIds: slack } : {}) }, w.now);
    const updated = (await findUserByKey(w.tx, key))!;
    await notify(w, { kind: 'user_edited', user: updated, detail: { before: user } });
    return updated;
  });
}

/** Renaming a key rewrites no record: records point at the permanent actor row (docs/human-messages.md). */
export async function renameUser(ctx: AppContext, caller: Caller, key: string, newKey: string): Promise<UserRecord> {
  requireKey(newKey);
  return inWriteTx(ctx, async (w) => {
    await authorize(w.tx, ctx, caller, 'admin', null);
    const user = await findUserByKey(w.tx, key);
    if (!user) throw new WarrantError('user-not-found', `No roster user has the key ${key}.`);
    if (await findUserByKey(w.tx, newKey)) throw new WarrantError('user-exists', `A roster user with the key ${newKey} exists already.`);
    await updateUser(w.tx, user.id, { key: newKey }, w.now);
    const renamed = (await findUserByKey(w.tx, newKey))!;
    await notify(w, { kind: 'user_renamed', user: renamed, detail: { old_key: key } });
    return renamed;
  });
}

export async function listUsers(ctx: AppContext, caller: Caller): Promise<UserRecord[]> {
  await authorize(ctx.store.kysely, ctx, caller, 'admin', null);
  return listUserRows(ctx.store.kysely);
}

/** One roster row by key, for an admin (null when no user has it). */
export async function findRosterUser(ctx: AppContext, caller: Caller, key: string): Promise<UserRecord | null> {
  await authorize(ctx.store.kysely, ctx, caller, 'admin', null);
  return findUserByKey(ctx.store.kysely, key);
}

/** What `warrant init` did about the store's admin. */
interface AdminAdoption {
  user: UserRecord;
  /** `set`: the store had no admin; `kept`: it had this one; `replaced`: `--replace-admin` changed it */
  outcome: 'set' | 'kept' | 'replaced';
  /** the admin the store had before, when it differs from `user` */
  previous: string | null;
}

/**
 * `warrant init` (host CLI): the store's admin user. A store that has one keeps it — init
 * run again, by another login name, never demotes the admin; naming a different one needs
 * `replace`, and goes through the same audited setting change as `warrant settings set`.
 * The named user is added as an admin when missing.
 */
export async function adoptAdminUser(
  ctx: AppContext,
  caller: Caller,
  input: { key: string; displayName?: string; explicit: boolean; replace: boolean },
): Promise<AdminAdoption> {
  const current = await getSetting(ctx.store.kysely, SETTING_ADMIN_USER);
  const currentUser = current ? await findUserByKey(ctx.store.kysely, current) : null;
  if (currentUser && !currentUser.removedAt && currentUser.key !== input.key && !input.replace) {
    if (input.explicit) {
      throw new WarrantError(
        'admin-already-set',
        `This store's admin is ${currentUser.key}; init does not replace an admin. Pass --replace-admin to make ${input.key} the admin (an audited setting change), or leave --admin out.`,
        { details: { admin: currentUser.key } },
      );
    }
    return { user: currentUser, outcome: 'kept', previous: null };
  }
  let user = await findUserByKey(ctx.store.kysely, input.key);
  if (!user) user = await addUser(ctx, caller, { key: input.key, ...(input.displayName ? { displayName: input.displayName } : {}), isAdmin: true });
  if (current === user.key) return { user, outcome: 'kept', previous: null };
  await changeSetting(ctx, caller, SETTING_ADMIN_USER, user.key);
  return { user, outcome: current ? 'replaced' : 'set', previous: current };
}

interface IssuedToken {
  token: string;
  credentialId: number;
}

/** Issues a human token for a roster user's own CLI; shown once. */
export async function issueHumanToken(ctx: AppContext, caller: Caller, key: string, label?: string): Promise<IssuedToken> {
  return inWriteTx(ctx, async (w) => {
    await authorize(w.tx, ctx, caller, 'admin', null);
    const user = await findUserByKey(w.tx, key);
    if (!user || user.removedAt) throw new WarrantError('user-not-found', `No roster user has the key ${key}.`);
    const token = generateToken(ctx, 'human');
    const issuer = await w.actorId(callerActor(caller).actor);
    const credentialId = await registerToken(w.tx, token, { kind: 'human', userId: user.id, label: label ?? `${key} CLI`, issuedByActorId: issuer }, w.now);
    w.audit({ kind: 'token_issued', at: w.now, credential_id: credentialId, token_kind: 'human', user_id: user.id, issued_by_actor_id: issuer });
    await notify(w, { kind: 'human_token_issued', user, detail: { credential_id: credentialId } });
    return { token, credentialId };
  });
}

export async function issueClientKey(ctx: AppContext, caller: Caller, name: string): Promise<IssuedToken> {
  if (!isValidClientName(name)) {
    throw new WarrantError('invalid-request', 'name: 1–32 characters of a-z, 0-9 and "-", starting with a letter.', { details: { field: 'name' } });
  }
  return inWriteTx(ctx, async (w) => {
    await authorize(w.tx, ctx, caller, 'admin', null);
    const token = generateToken(ctx, 'client');
    const issuer = await w.actorId(callerActor(caller).actor);
    await w.actorId({ kind: 'client', name });
    const credentialId = await registerToken(w.tx, token, { kind: 'client', clientName: name, label: `client ${name}`, issuedByActorId: issuer }, w.now);
    w.audit({ kind: 'token_issued', at: w.now, credential_id: credentialId, token_kind: 'client', client_name: name, issued_by_actor_id: issuer });
    return { token, credentialId };
  });
}

export async function issueFleetKey(ctx: AppContext, caller: Caller, label: string): Promise<IssuedToken> {
  return inWriteTx(ctx, async (w) => {
    await authorize(w.tx, ctx, caller, 'admin', null);
    const token = generateToken(ctx, 'fleet');
    const issuer = await w.actorId(callerActor(caller).actor);
    const credentialId = await registerToken(w.tx, token, { kind: 'fleet', label, issuedByActorId: issuer }, w.now);
    w.audit({ kind: 'token_issued', at: w.now, credential_id: credentialId, token_kind: 'fleet', issued_by_actor_id: issuer });
    return { token, credentialId };
  });
}

export async function listIssuedTokens(
  ctx: AppContext,
  caller: Caller,
  filter: { userKey?: string; kind?: 'human' | 'client' | 'fleet' },
): Promise<(TokenRecord & { userKey: string | null })[]> {
  const db = ctx.store.kysely;
  await authorize(db, ctx, caller, 'admin', null);
  let userId: number | undefined;
  if (filter.userKey) {
    const user = await findUserByKey(db, filter.userKey);
    if (!user) throw new WarrantError('user-not-found', `No roster user has the key ${filter.userKey}.`);
    userId = user.id;
  }
  const rows = (await listTokens(db, { ...(filter.kind ? { kind: filter.kind } : {}), ...(userId !== undefined ? { userId } : {}) })).filter(
    (t) => t.kind !== 'session',
  );
  const users = new Map((await listUserRows(db)).map((u) => [u.id, u.key]));
  return rows.map((t) => ({ ...t, userKey: t.userId === null ? null : (users.get(t.userId) ?? null) }));
}

export async function revokeIssuedToken(ctx: AppContext, caller: Caller, credentialId: number): Promise<void> {
  await inWriteTx(ctx, async (w) => {
    await authorize(w.tx, ctx, caller, 'admin', null);
    const token = await findTokenById(w.tx, credentialId);
    if (!token || token.kind === 'session') throw new WarrantError('token-not-found', `No revocable token has credential id ${credentialId}.`);
    if (!(await revokeToken(w.tx, credentialId, w.now))) return;
    w.audit({ kind: 'token_revoked', at: w.now, credential_id: credentialId, token_kind: token.kind });
    if (token.kind === 'human') await notify(w, { kind: 'human_token_revoked', detail: { credential_id: credentialId, user_id: token.userId } });
  });
}

/** The roster's records, as surfaces render them (they never import store/). */
export type { TokenRecord, UserRecord };
