import type { Executor } from './dialect/dialect.js';

/** Web sign-in records (docs/concepts.md): one-time links / setup codes and browser sessions. */

type LoginLinkPurpose = 'sign-in' | 'setup';

export interface LoginLinkRecord {
  id: number;
  purpose: LoginLinkPurpose;
  userId: number | null;
  issuedVia: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

export async function insertLoginLink(
  db: Executor,
  l: { secretHash: string; purpose: LoginLinkPurpose; userId: number | null; issuedVia: string; now: string; expiresAt: string },
): Promise<number> {
  const row = await db
    .insertInto('web_login_links')
    .values({
      secret_hash: l.secretHash,
      purpose: l.purpose,
      user_id: l.userId,
      issued_via: l.issuedVia,
      created_at: l.now,
      expires_at: l.expiresAt,
      used_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findLoginLinkByHash(db: Executor, secretHash: string): Promise<LoginLinkRecord | null> {
  const r = await db.selectFrom('web_login_links').selectAll().where('secret_hash', '=', secretHash).executeTakeFirst();
  if (!r) return null;
  return {
    id: Number(r.id),
    purpose: r.purpose as LoginLinkPurpose,
    userId: r.user_id === null ? null : Number(r.user_id),
    issuedVia: r.issued_via,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
  };
}

/** Marks a link used if it is still unused and unexpired: single use even under a race. */
export async function consumeLoginLink(db: Executor, id: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable('web_login_links')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A new setup code replaces every earlier unused one. */
export async function retireUnusedLinks(db: Executor, purpose: LoginLinkPurpose, now: string): Promise<void> {
  await db
    .updateTable('web_login_links')
    .set({ expires_at: now })
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
}

export interface WebSessionRecord {
  id: number;
  credentialId: number;
  userId: number;
  method: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  endedAt: string | null;
  credentialRevokedAt: string | null;
}

export async function insertWebSession(
  db: Executor,
  s: { credentialId: number; userId: number; method: string; loginLinkId: number | null; userAgent: string | null; now: string; expiresAt: string },
): Promise<number> {
  const row = await db
    .insertInto('web_sessions')
    .values({
      credential_id: s.credentialId,
      user_id: s.userId,
      method: s.method,
      login_link_id: s.loginLinkId,
      user_agent: s.userAgent,
      created_at: s.now,
      last_seen_at: s.now,
      expires_at: s.expiresAt,
      ended_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The web session whose cookie secret has this digest (through its `web` credential row). */
export async function findWebSessionBySecretHash(db: Executor, secretHash: string): Promise<WebSessionRecord | null> {
  const r = await db
    .selectFrom('tokens')
    .innerJoin('web_sessions', 'web_sessions.credential_id', 'tokens.id')
    .select([
      'web_sessions.id as id',
      'web_sessions.credential_id as credential_id',
      'web_sessions.user_id as user_id',
      'web_sessions.method as method',
      'web_sessions.created_at as created_at',
      'web_sessions.last_seen_at as last_seen_at',
      'web_sessions.expires_at as expires_at',
      'web_sessions.ended_at as ended_at',
      'tokens.revoked_at as revoked_at',
    ])
    .where('tokens.token_hash', '=', secretHash)
    .where('tokens.kind', '=', 'web')
    .executeTakeFirst();
  if (!r) return null;
  return {
    id: Number(r.id),
    credentialId: Number(r.credential_id),
    userId: Number(r.user_id),
    method: r.method,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    expiresAt: r.expires_at,
    endedAt: r.ended_at,
    credentialRevokedAt: r.revoked_at,
  };
}

export async function touchWebSession(db: Executor, id: number, now: string): Promise<void> {
  await db.updateTable('web_sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
}

export async function endWebSession(db: Executor, id: number, now: string): Promise<boolean> {
  const r = await db.updateTable('web_sessions').set({ ended_at: now }).where('id', '=', id).where('ended_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
