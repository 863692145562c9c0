import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { TOKEN_PREFIXES, tokenKindOf, type TokenKind } from '../core/tokens.js';
import { WarrantError } from '../core/errors.js';
import { findTokenWithUserByHash, insertToken, sessionTokenFor, type TokenRecord } from '../store/tokens-repo.js';
import type { UserRecord } from '../store/users-repo.js';
import type { Executor } from '../store/dialect/dialect.js';
import type { AppContext } from './context.js';
import { WITNESS_SCOPE_MESSAGE, type Caller, type Principal, type Surface, type Via } from './caller.js';

/** Tokens are stored as SHA-256 hex and never in plaintext. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh random 256-bit token of the given kind. */
export function generateToken(ctx: Pick<AppContext, 'ids'>, kind: TokenKind): string {
  return TOKEN_PREFIXES[kind] + ctx.ids.bytes(32).toString('base64url');
}

/**
 * Session tokens are derived with HMAC from the server secret (docs/concepts.md), so an idempotent
 * replay can return the same token without it ever being stored.
 */
export function deriveSessionToken(serverSecret: Buffer, sessionId: number, activation: number): string {
  const mac = createHmac('sha256', serverSecret).update(`warrant-session-token:${sessionId}:${activation}`).digest('base64url');
  return TOKEN_PREFIXES.session + mac;
}

/** Mints (records) the token of a session's new activation and returns it with its credential id. */
export async function mintSessionToken(
  db: Executor,
  ctx: AppContext,
  sessionId: number,
  activation: number,
  issuedByActorId: number | null,
  now: string,
): Promise<{ token: string; credentialId: number }> {
  const token = deriveSessionToken(ctx.serverSecret, sessionId, activation);
  const credentialId = await insertToken(db, {
    kind: 'session',
    hash: hashToken(token),
    sessionId,
    activation,
    issuedByActorId,
    label: `session #${sessionId} activation ${activation}`,
    now,
  });
  return { token, credentialId };
}

/** The token of the session's current activation, if one was minted (idempotent replays). */
export async function currentSessionToken(db: Executor, ctx: AppContext, sessionId: number, activation: number): Promise<string | null> {
  const row = await sessionTokenFor(db, sessionId, activation);
  if (!row || row.revokedAt) return null;
  return deriveSessionToken(ctx.serverSecret, sessionId, activation);
}

export async function registerToken(
  db: Executor,
  token: string,
  fields: { kind: TokenKind; label?: string; userId?: number; clientName?: string; issuedByActorId?: number | null; sessionId?: number; activation?: number },
  now: string,
): Promise<number> {
  return insertToken(db, { ...fields, hash: hashToken(token), now });
}

/** The token's record and, for a human token, its user's roster row (one query). */
async function lookup(db: Executor, token: string): Promise<{ token: TokenRecord; user: UserRecord | null } | null> {
  const hash = hashToken(token);
  const found = await findTokenWithUserByHash(db, hash);
  if (!found) return null;
  // The index lookup found a row by digest; compare the stored digest with the presented
  // token's in constant time (docs/design/sessions.md; an index lookup alone is not a comparison).
  const stored = Buffer.from(found.token.tokenHash, 'hex');
  const presented = Buffer.from(hash, 'hex');
  return stored.length === presented.length && timingSafeEqual(stored, presented) ? found : null;
}

/**
 * Authenticates a bearer token into a caller. Missing → 401 `unauthenticated`; unknown,
 * malformed or revoked → 401 `invalid-token`.
 */
export async function authenticate(
  ctx: AppContext,
  bearer: string | null | undefined,
  surface: Surface,
  via: Via,
  options: { witnessRoute?: boolean } = {},
): Promise<Caller> {
  if (!bearer) throw new WarrantError('unauthenticated', 'This route needs a credential: send Authorization: Bearer <token>.');
  const kind = tokenKindOf(bearer);
  if (!kind) throw new WarrantError('invalid-token', 'The bearer token is not a Warrant token (expected a wrt_f_, wrt_s_, wrt_h_, wrt_c_ or wrt_t_ prefix).');
  const db = ctx.store.kysely;
  const found = await lookup(db, bearer);
  const row = found?.token;
  if (!row || row.kind !== kind) throw new WarrantError('invalid-token', 'The bearer token is not known to this deployment.');
  if (row.revokedAt) throw new WarrantError('invalid-token', 'The bearer token was revoked.');
  let principal: Principal;
  switch (row.kind) {
    case 'fleet':
      principal = { kind: 'fleet' };
      break;
    case 'session':
      principal = { kind: 'session', sessionId: row.sessionId!, activation: row.activation! };
      break;
    case 'human': {
      const user = found.user;
      if (!user || user.removedAt) throw new WarrantError('invalid-token', 'The human token belongs to a user who was removed from the roster.');
      principal = { kind: 'human', userId: user.id, userKey: user.key, isAdmin: user.isAdmin };
      break;
    }
    case 'client':
      principal = { kind: 'client', name: row.clientName! };
      break;
    case 'witness': {
      const user = found.user;
      if (!user || user.removedAt) throw new WarrantError('invalid-token', 'The witness credential belongs to a user who was removed from the roster.');
      // docs/design/terminal-channel.md: a valid witness credential reaches the terminal routes and nothing else
      if (!options.witnessRoute) throw new WarrantError('witness-credential-scope', WITNESS_SCOPE_MESSAGE);
      principal = { kind: 'witness', sessionId: row.sessionId!, activation: row.activation!, userId: user.id, userKey: user.key };
      break;
    }
  }
  return { principal, credentialId: row.id, surface, via };
}
