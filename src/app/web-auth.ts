import { WarrantError, type KnownErrorToken } from '../core/errors.js';
import { WEB_SESSION_PREFIX, isValidUserKey } from '../core/tokens.js';
import { getSetting, setSetting } from '../store/settings-repo.js';
import { countUsers, findUserById, findUserByKey, passwordHashOf, updateUser, type UserRecord } from '../store/users-repo.js';
import { insertToken, revokeToken } from '../store/tokens-repo.js';
import {
  consumeLoginLink,
  endWebSession,
  findLoginLinkByHash,
  findWebSessionBySecretHash,
  insertLoginLink,
  insertWebSession,
  retireUnusedLinks,
  touchWebSession,
  type LoginLinkRecord,
  type WebSessionRecord,
} from '../store/web-repo.js';
import { authorize } from './access.js';
import { SETTING_ADMIN_USER } from './bootstrap.js';
import { callerActor, type Caller } from './caller.js';
import type { AppContext } from './context.js';
import { hashToken } from './credentials.js';
import { checkPasswordStrength, hashPassword, verifyPassword } from './passwords.js';
import { AttemptThrottle } from '../core/attempt-throttle.js';
import { insertRosterUser, notifyRosterChange } from './roster.js';
import { inWriteTx, type WriteScope } from './write-scope.js';
import type { Executor } from '../store/dialect/dialect.js';

/**
 * Web UI sign-in (docs/concepts.md): even a single-admin install needs a
 * sign-in cookie, or any agent on the host could post the forms and be recorded as the human.
 * Secrets (cookies, one-time links, setup codes) are random, stored only as SHA-256, expire,
 * and links are single-use. A browser's sign-in is a credential (a `tokens` row of kind
 * `web`) so every web act records the credential it used, like any token.
 */
export const SIGN_IN_LINK_TTL_MS = 60 * 60 * 1000;
export const SETUP_CODE_TTL_MS = 24 * 60 * 60 * 1000;
const WEB_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** last_seen_at is refreshed at most this often (a read should not write on every request) */
const TOUCH_EVERY_MS = 5 * 60 * 1000;

const SETUP_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32: no I, L, O, U

export interface SignInMeta {
  userAgent: string | null;
}

export interface WebSignIn {
  /** the cookie value; shown to nobody, stored as a digest */
  cookieSecret: string;
  user: UserRecord;
  credentialId: number;
  expiresAt: string;
}

export interface WebIdentity {
  caller: Caller;
  user: UserRecord;
  session: WebSessionRecord;
}

function plusMs(iso: string, ms: number): string {
  return new Date(Date.parse(iso) + ms).toISOString();
}

function signInRefused(token: KnownErrorToken, message: string): WarrantError {
  return new WarrantError(token, message);
}

/** The roster row of the single admin (the `admin_user` setting), when it resolves. */
export async function singleAdmin(ctx: AppContext, db: Executor = ctx.store.kysely): Promise<UserRecord | null> {
  const key = await getSetting(db, SETTING_ADMIN_USER);
  if (!key) return null;
  const user = await findUserByKey(db, key);
  return user && !user.removedAt ? user : null;
}

export async function rosterIsEmpty(ctx: AppContext): Promise<boolean> {
  return (await countUsers(ctx.store.kysely)) === 0;
}

/** Whether this roster human may sign in to the web UI in this deployment mode. */
async function maySignIn(ctx: AppContext, user: UserRecord | null, db: Executor = ctx.store.kysely): Promise<boolean> {
  if (!user || user.removedAt) return false;
  if (ctx.mode === 'multi-user') return true;
  // inside a write transaction, read through it (SQLite has one connection)
  const admin = await singleAdmin(ctx, db);
  return admin !== null && admin.id === user.id;
}

/**
 * A one-time sign-in link secret for `key` (default: the single admin). Admin only: the host
 * CLI (`warrant users login-link`) and `warrant serve` at start.
 */
export async function issueSignInLink(
  ctx: AppContext,
  caller: Caller,
  key: string | null,
  options: { issuedVia: 'serve' | 'cli' | 'web'; ttlMs?: number },
): Promise<{ secret: string; user: UserRecord; expiresAt: string }> {
  await authorize(ctx.store.kysely, ctx, caller, 'admin', null);
  let user: UserRecord | null;
  if (key) {
    user = await findUserByKey(ctx.store.kysely, key);
    if (!user || user.removedAt) throw new WarrantError('user-not-found', `No roster user has the key ${key}.`);
  } else {
    user = await singleAdmin(ctx);
    if (!user) {
      throw new WarrantError('no-single-admin', 'No single admin is configured: set WARRANT_ADMIN_USER (or run `warrant init`), or name a roster key.');
    }
  }
  if (!(await maySignIn(ctx, user))) {
    const admin = await singleAdmin(ctx);
    throw new WarrantError(
      'single-admin-mode',
      `Single-admin mode: the web UI signs in the single admin${admin ? ` (${admin.key})` : ''} only. Run the server with WARRANT_MODE=multi-user to sign other people in.`,
    );
  }
  const ttl = options.ttlMs ?? SIGN_IN_LINK_TTL_MS;
  if (!(ttl >= 60_000) || ttl > 7 * 24 * 60 * 60 * 1000)
    throw new WarrantError('invalid-request', 'ttl: between 1 minute and 7 days.', { details: { field: 'ttl' } });
  const secret = ctx.ids.bytes(32).toString('base64url');
  const now = ctx.clock.now().toISOString();
  const expiresAt = plusMs(now, ttl);
  await inWriteTx(ctx, async (w) => {
    await insertLoginLink(w.tx, { secretHash: hashToken(secret), purpose: 'sign-in', userId: user.id, issuedVia: options.issuedVia, now: w.now, expiresAt });
    w.audit({
      kind: 'web_sign_in_link_issued',
      at: w.now,
      user_id: user.id,
      issued_via: options.issuedVia,
      expires_at: expiresAt,
      issued_by_actor_id: await w.actorId(callerActor(caller).actor),
    });
  });
  return { secret, user, expiresAt };
}

/** Normalizes a typed setup code: case, separators, and the look-alikes base32 leaves out. */
function normalizeSetupCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

/**
 * When the roster is empty, a fresh one-time setup code for the first-run page (printed on
 * the server console); earlier unused codes stop working. Null when the roster has people.
 */
export async function issueSetupCode(ctx: AppContext): Promise<{ code: string; expiresAt: string } | null> {
  if (!(await rosterIsEmpty(ctx))) return null;
  const bytes = ctx.ids.bytes(10);
  const chars = [...bytes].map((b) => SETUP_ALPHABET[b % 32]!).join('');
  const code = `${chars.slice(0, 5)}-${chars.slice(5)}`;
  const now = ctx.clock.now().toISOString();
  const expiresAt = plusMs(now, SETUP_CODE_TTL_MS);
  await inWriteTx(ctx, async (w) => {
    await retireUnusedLinks(w.tx, 'setup', w.now);
    await insertLoginLink(w.tx, {
      secretHash: hashToken('setup:' + normalizeSetupCode(code)),
      purpose: 'setup',
      userId: null,
      issuedVia: 'serve',
      now: w.now,
      expiresAt,
    });
  });
  return { code, expiresAt };
}

function checkLink(link: LoginLinkRecord | null, now: string): LoginLinkRecord {
  if (!link || link.purpose !== 'sign-in')
    throw signInRefused('sign-in-link-invalid', 'This sign-in link is not known here. Ask for a new one: `warrant users login-link`.');
  if (link.usedAt)
    throw signInRefused('sign-in-link-used', 'This sign-in link was used already; each link signs in once. Get a new one with `warrant users login-link`.');
  if (link.expiresAt <= now) throw signInRefused('sign-in-link-expired', 'This sign-in link expired. Get a new one with `warrant users login-link`.');
  return link;
}

/** Who a link would sign in, without using it (the confirmation page). */
export async function describeSignInLink(ctx: AppContext, secret: string): Promise<{ user: UserRecord; expiresAt: string }> {
  const link = checkLink(await findLoginLinkByHash(ctx.store.kysely, hashToken(secret)), ctx.clock.now().toISOString());
  const user = link.userId === null ? null : await findUserById(ctx.store.kysely, link.userId);
  if (!user || !(await maySignIn(ctx, user))) throw signInRefused('sign-in-link-invalid', 'This sign-in link names someone who may no longer sign in here.');
  return { user, expiresAt: link.expiresAt };
}

async function startWebSession(
  w: WriteScope,
  user: UserRecord,
  method: 'link' | 'password' | 'setup',
  loginLinkId: number | null,
  meta: SignInMeta,
): Promise<WebSignIn> {
  const cookieSecret = WEB_SESSION_PREFIX + w.ctx.ids.bytes(32).toString('base64url');
  const expiresAt = plusMs(w.now, WEB_SESSION_TTL_MS);
  const actorId = await w.actorId({ kind: 'human', userId: user.id });
  const credentialId = await insertToken(w.tx, {
    kind: 'web',
    hash: hashToken(cookieSecret),
    label: `web sign-in (${method})`,
    userId: user.id,
    issuedByActorId: actorId,
    now: w.now,
  });
  await insertWebSession(w.tx, { credentialId, userId: user.id, method, loginLinkId, userAgent: meta.userAgent?.slice(0, 300) ?? null, now: w.now, expiresAt });
  w.audit({
    kind: 'web_signed_in',
    at: w.now,
    credential_id: credentialId,
    user_id: user.id,
    method,
    ...(loginLinkId !== null ? { login_link_id: loginLinkId } : {}),
  });
  return { cookieSecret, user, credentialId, expiresAt };
}

export async function signInWithLink(ctx: AppContext, secret: string, meta: SignInMeta): Promise<WebSignIn> {
  return inWriteTx(ctx, async (w) => {
    const link = checkLink(await findLoginLinkByHash(w.tx, hashToken(secret)), w.now);
    const user = link.userId === null ? null : await findUserById(w.tx, link.userId);
    if (!user || !(await maySignIn(ctx, user, w.tx)))
      throw signInRefused('sign-in-link-invalid', 'This sign-in link names someone who may no longer sign in here.');
    if (!(await consumeLoginLink(w.tx, link.id, w.now)))
      throw signInRefused('sign-in-link-used', 'This sign-in link was used already; each link signs in once.');
    return startWebSession(w, user, 'link', link.id, meta);
  });
}

const WRONG_PASSWORD = 'The key or the password is wrong (or no password is set for this person: `warrant users password <key>`).';

/** Failed password sign-ins per key, per service (one throttle per context). */
const throttles = new WeakMap<AppContext, AttemptThrottle>();

function throttleOf(ctx: AppContext): AttemptThrottle {
  let t = throttles.get(ctx);
  if (!t) throttles.set(ctx, (t = new AttemptThrottle()));
  return t;
}

export async function signInWithPassword(ctx: AppContext, key: string, password: string, meta: SignInMeta): Promise<WebSignIn> {
  const db = ctx.store.kysely;
  const throttle = throttleOf(ctx);
  // counted per typed key, existing or not, so the refusal says nothing about who exists
  const throttleKey = key.trim().toLowerCase().slice(0, 64);
  const wait = throttle.retryAfterMs(throttleKey, ctx.clock.now().getTime());
  if (wait > 0) {
    const minutes = Math.ceil(wait / 60_000);
    throw new WarrantError(
      'sign-in-throttled',
      `Too many failed sign-ins for this key: try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or ask an admin for a one-time sign-in link.`,
      {
        details: { retry_after_s: Math.ceil(wait / 1000) },
      },
    );
  }
  const user = isValidUserKey(key) ? await findUserByKey(db, key) : null;
  const stored = user ? await passwordHashOf(db, user.id) : null;
  // verify even when there is no user, so the answer's timing does not reveal who exists
  const ok = await verifyPassword(password.slice(0, 1024), stored);
  if (!ok || !user || !(await maySignIn(ctx, user))) {
    throttle.fail(throttleKey, ctx.clock.now().getTime());
    ctx.logger.info({ key: key.slice(0, 64) }, 'web sign-in refused');
    throw signInRefused('sign-in-failed', WRONG_PASSWORD);
  }
  throttle.succeed(throttleKey);
  return inWriteTx(ctx, (w) => startWebSession(w, user, 'password', null, meta));
}

interface SetupInput {
  code: string;
  key: string;
  displayName?: string;
  password?: string | null;
}

/**
 * The first-run page: with the one-time setup code from the server console, creates the
 * admin, makes them the single admin, and signs them in — one transaction, so a failure
 * leaves the code unused.
 */
export async function completeSetup(ctx: AppContext, input: SetupInput, meta: SignInMeta): Promise<WebSignIn> {
  if (!isValidUserKey(input.key)) {
    throw new WarrantError('invalid-request', 'key: 1–64 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit.', {
      details: { field: 'key' },
    });
  }
  if (input.password) checkPasswordStrength(input.password);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return inWriteTx(ctx, async (w) => {
    if ((await countUsers(w.tx)) > 0) throw new WarrantError('setup-done', 'This deployment has a roster already; sign in instead.');
    const link = await findLoginLinkByHash(w.tx, hashToken('setup:' + normalizeSetupCode(input.code)));
    if (!link || link.purpose !== 'setup' || link.usedAt || link.expiresAt <= w.now || !(await consumeLoginLink(w.tx, link.id, w.now))) {
      ctx.logger.warn('first-run setup refused: wrong or expired setup code');
      throw signInRefused(
        'setup-code-invalid',
        'That setup code is wrong or expired. The current one is printed on the server console at start (restart `warrant serve` for a new one).',
      );
    }
    const user = await insertRosterUser(w, { key: input.key, ...(input.displayName?.trim() ? { displayName: input.displayName.trim() } : {}), isAdmin: true });
    if (passwordHash) await updateUser(w.tx, user.id, { passwordHash }, w.now);
    await setSetting(w.tx, SETTING_ADMIN_USER, user.key, w.now);
    await notifyRosterChange(w, { kind: 'admin_user_set', user, detail: { via: 'web_ui.setup' } });
    w.audit({ kind: 'web_setup_completed', at: w.now, user_id: user.id, login_link_id: link.id });
    return startWebSession(w, user, 'setup', link.id, meta);
  });
}

/** The signed-in human behind a web cookie, or null (missing, unknown, ended, expired, revoked). */
export async function authenticateWebSession(ctx: AppContext, cookieSecret: string | null | undefined): Promise<WebIdentity | null> {
  if (!cookieSecret || !cookieSecret.startsWith(WEB_SESSION_PREFIX) || cookieSecret.length > 200) return null;
  const db = ctx.store.kysely;
  const session = await findWebSessionBySecretHash(db, hashToken(cookieSecret));
  const now = ctx.clock.now().toISOString();
  if (!session || session.endedAt || session.credentialRevokedAt || session.expiresAt <= now) return null;
  const user = await findUserById(db, session.userId);
  if (!user || !(await maySignIn(ctx, user))) return null;
  if (Date.parse(now) - Date.parse(session.lastSeenAt) > TOUCH_EVERY_MS) await touchWebSession(db, session.id, now);
  const caller: Caller = {
    principal: { kind: 'human', userId: user.id, userKey: user.key, isAdmin: user.isAdmin },
    credentialId: session.credentialId,
    surface: 'web',
    via: 'web_ui',
  };
  return { caller, user, session };
}

/** Ends the browser's sign-in and retires its credential. */
export async function signOut(ctx: AppContext, identity: WebIdentity): Promise<void> {
  await inWriteTx(ctx, async (w) => {
    if (await endWebSession(w.tx, identity.session.id, w.now)) {
      await revokeToken(w.tx, identity.session.credentialId, w.now);
      w.audit({ kind: 'web_signed_out', at: w.now, credential_id: identity.session.credentialId, user_id: identity.user.id });
    }
  });
}

/** `warrant users password <key>` (admin): sets or clears a roster human's web password. */
export async function setUserPassword(ctx: AppContext, caller: Caller, key: string, password: string | null): Promise<UserRecord> {
  if (password !== null) checkPasswordStrength(password);
  const passwordHash = password === null ? null : await hashPassword(password);
  return inWriteTx(ctx, async (w) => {
    await authorize(w.tx, ctx, caller, 'admin', null);
    const user = await findUserByKey(w.tx, key);
    if (!user || user.removedAt) throw new WarrantError('user-not-found', `No roster user has the key ${key}.`);
    await updateUser(w.tx, user.id, { passwordHash }, w.now);
    const updated = (await findUserByKey(w.tx, key))!;
    // coverage (docs/human-messages.md): "multi-user mode with at least one user who can sign in"
    await notifyRosterChange(w, { kind: password === null ? 'password_cleared' : 'password_set', user: updated });
    w.audit({
      kind: password === null ? 'web_password_cleared' : 'web_password_set',
      at: w.now,
      user_id: user.id,
      by_actor_id: await w.actorId(callerActor(caller).actor),
    });
    return updated;
  });
}
