import type { CredentialKind } from '../core/tokens.js';
import type { Executor } from './dialect/dialect.js';
import { toUser, type UserRecord } from './users-repo.js';
import { compiledOnce } from './compiled-once.js';

export interface TokenRecord {
  id: number;
  kind: CredentialKind;
  label: string | null;
  userId: number | null;
  clientName: string | null;
  sessionId: number | null;
  activation: number | null;
  createdAt: string;
  revokedAt: string | null;
  /** the stored SHA-256 (hex) of the token; never the token */
  tokenHash: string;
}

type TokenRow = {
  id: number;
  kind: string;
  label: string | null;
  user_id: number | null;
  client_name: string | null;
  session_id: number | null;
  activation: number | null;
  created_at: string;
  revoked_at: string | null;
  token_hash: string;
};

const COLUMNS = ['id', 'kind', 'label', 'user_id', 'client_name', 'session_id', 'activation', 'created_at', 'revoked_at', 'token_hash'] as const;

function toToken(r: TokenRow): TokenRecord {
  return {
    id: Number(r.id),
    kind: r.kind as CredentialKind,
    label: r.label,
    userId: r.user_id === null ? null : Number(r.user_id),
    clientName: r.client_name,
    sessionId: r.session_id === null ? null : Number(r.session_id),
    activation: r.activation === null ? null : Number(r.activation),
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    tokenHash: r.token_hash,
  };
}

/** Looks a token up by its SHA-256 (the caller compares the stored digest in constant time). */
export async function findTokenByHash(db: Executor, hash: string): Promise<TokenRecord | null> {
  const row = await db.selectFrom('tokens').select(COLUMNS).where('token_hash', '=', hash).executeTakeFirst();
  return row ? toToken(row) : null;
}

const tokenWithUserRows = compiledOnce((db, p: { hash: string }) =>
  db
    .selectFrom('tokens as t')
    .leftJoin('users as u', 'u.id', 't.user_id')
    .select([
      't.id',
      't.kind',
      't.label',
      't.user_id',
      't.client_name',
      't.session_id',
      't.activation',
      't.created_at',
      't.revoked_at',
      't.token_hash',
      'u.id as u_id',
      'u.key as u_key',
      'u.display_name as u_display_name',
      'u.email as u_email',
      'u.slack_user_ids as u_slack_user_ids',
      'u.notes as u_notes',
      'u.is_admin as u_is_admin',
      'u.password_hash as u_password_hash',
      'u.removed_at as u_removed_at',
      'u.created_at as u_created_at',
      'u.updated_at as u_updated_at',
    ])
    .where('t.token_hash', '=', p.hash),
);

/**
 * findTokenByHash with, for a human token, its user's roster row (left join): what every
 * authenticated request needs, in one query instead of two.
 */
export async function findTokenWithUserByHash(db: Executor, hash: string): Promise<{ token: TokenRecord; user: UserRecord | null } | null> {
  const [row] = await tokenWithUserRows(db, { hash });
  if (!row) return null;
  const user =
    row.u_id === null || row.u_id === undefined
      ? null
      : toUser({
          id: row.u_id,
          key: row.u_key!,
          display_name: row.u_display_name!,
          email: row.u_email ?? null,
          slack_user_ids: row.u_slack_user_ids!,
          notes: row.u_notes ?? null,
          is_admin: row.u_is_admin as unknown as number,
          password_hash: row.u_password_hash ?? null,
          removed_at: row.u_removed_at ?? null,
          created_at: row.u_created_at!,
          updated_at: row.u_updated_at!,
        });
  return { token: toToken(row), user };
}

export async function insertToken(
  db: Executor,
  t: {
    kind: CredentialKind;
    hash: string;
    label?: string | null;
    userId?: number | null;
    clientName?: string | null;
    sessionId?: number | null;
    activation?: number | null;
    issuedByActorId?: number | null;
    now: string;
  },
): Promise<number> {
  const row = await db
    .insertInto('tokens')
    .values({
      kind: t.kind,
      token_hash: t.hash,
      label: t.label ?? null,
      user_id: t.userId ?? null,
      client_name: t.clientName ?? null,
      session_id: t.sessionId ?? null,
      activation: t.activation ?? null,
      issued_by_actor_id: t.issuedByActorId ?? null,
      created_at: t.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function listTokens(db: Executor, filter: { kind?: CredentialKind; userId?: number }): Promise<TokenRecord[]> {
  let q = db.selectFrom('tokens').select(COLUMNS);
  if (filter.kind) q = q.where('kind', '=', filter.kind);
  if (filter.userId !== undefined) q = q.where('user_id', '=', filter.userId);
  const rows = await q.orderBy('id').execute();
  return rows.map((r) => toToken(r));
}

export async function findTokenById(db: Executor, id: number): Promise<TokenRecord | null> {
  const row = await db.selectFrom('tokens').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  return row ? toToken(row) : null;
}

export async function revokeToken(db: Executor, id: number, now: string): Promise<boolean> {
  const r = await db.updateTable('tokens').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function sessionTokenFor(db: Executor, sessionId: number, activation: number): Promise<TokenRecord | null> {
  const row = await db
    .selectFrom('tokens')
    .select(COLUMNS)
    .where('kind', '=', 'session')
    .where('session_id', '=', sessionId)
    .where('activation', '=', activation)
    .executeTakeFirst();
  return row ? toToken(row) : null;
}

/** Human tokens not revoked, of roster users not removed: the CLI capture channel's reach. */
export async function countActiveHumanTokens(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('t.kind', '=', 'human')
    .where('t.revoked_at', 'is', null)
    .where('u.removed_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
