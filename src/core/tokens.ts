/** docs/concepts.md: kind prefixes make a leaked token recognizable and strippable. */
export const TOKEN_PREFIXES = {
  fleet: 'wrt_f_',
  session: 'wrt_s_',
  human: 'wrt_h_',
  client: 'wrt_c_',
  /** docs/design/terminal-channel.md: a runner's witness credential, good only for its session's terminal reports */
  witness: 'wrt_t_',
} as const;
export type TokenKind = keyof typeof TOKEN_PREFIXES;

/**
 * Every credential an act can record (docs/concepts.md: "every act records the credential it used").
 * A `web` credential is a browser's sign-in (its secret travels only in an HttpOnly cookie,
 * never as a bearer token), so it has a prefix for leak recognition but is not a TokenKind.
 */
export type CredentialKind = TokenKind | 'web';
export const WEB_SESSION_PREFIX = 'wrt_w_';

/** @example tokenKindOf('wrt_h_abc') // 'human' */
export function tokenKindOf(token: string): TokenKind | null {
  for (const [kind, prefix] of Object.entries(TOKEN_PREFIXES) as [TokenKind, string][]) {
    if (token.startsWith(prefix) && token.length > prefix.length) return kind;
  }
  return null;
}

/** True for any string that looks like a Warrant token of any kind (used to strip environments). */
export function looksLikeWarrantToken(value: string): boolean {
  return /^wrt_[fshct]_[A-Za-z0-9_-]{16,}$/.test(value.trim());
}

/** Client names: 1–32 bytes of a-z, 0-9, '-', starting with a letter (docs/concepts.md). */
export function isValidClientName(name: string): boolean {
  return /^[a-z][a-z0-9-]{0,31}$/.test(name);
}

/** Roster keys: stable identity strings people type. */
export function isValidUserKey(key: string): boolean {
  return /^[a-z0-9][a-z0-9._-]{0,63}$/.test(key);
}
