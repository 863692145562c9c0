/**
 * The legacy parent key (`custom_metadata.router_session_id`, docs/concepts.md): the one
 * parser every reader and the create use, and the one list of spellings the store matches
 * as text. The key is derived at read time, never copied, and compared as text through an
 * expression index — so the spellings the parser accepts must be a finite list the store can
 * put in an `in (…)`: exactly `legacyParentKeySpellings` of the session it names.
 *
 * Accepted: an id (`42`, `#42`; no sign, no leading zero, no whitespace) and a full uid,
 * lowercase or uppercase (not mixed), hyphenated or not, optionally after `uid:`. Never a
 * prefix: a prefix could become ambiguous later.
 */

export const LEGACY_PARENT_KEY = 'router_session_id';

type LegacyParentRef = { kind: 'id'; id: number } | { kind: 'uid'; uid: string };

/**
 * The session a row names as its spawn parent, as every reader resolves it: the legacy key
 * when the row's basis is `legacy` (its column ignored), else the column; null when it names
 * none. Only an older session is a parent; that check needs the named row and stays with the
 * caller.
 */
export function spawnParentRef(row: { parentSessionId: number | null; parentBasis: string | null; legacyParentKey: string | null }): LegacyParentRef | null {
  if (row.parentBasis === 'legacy') return parseLegacyParentKey(row.legacyParentKey);
  return row.parentSessionId === null ? null : { kind: 'id', id: row.parentSessionId };
}

const ID_RE = /^#?([1-9][0-9]*)$/;
const HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BARE = /^[0-9a-f]{32}$/;

function hyphenate(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The session a stored key names, or null when it names none (malformed, a prefix, zero).
 * @example parseLegacyParentKey('#7') // {kind:'id', id:7}
 * @example parseLegacyParentKey('uid:3F2A9C1E4B5D4E6F8A9B0C1D2E3F4A5B') // {kind:'uid', uid:'3f2a9c1e-4b5d-4e6f-8a9b-0c1d2e3f4a5b'}
 * @example parseLegacyParentKey(' 7 ') // null
 */
export function parseLegacyParentKey(key: string | null | undefined): LegacyParentRef | null {
  if (key === null || key === undefined) return null;
  const id = ID_RE.exec(key);
  if (id) {
    const n = Number(id[1]);
    return Number.isSafeInteger(n) ? { kind: 'id', id: n } : null;
  }
  const body = key.startsWith('uid:') ? key.slice(4) : key;
  // one case throughout: a mixed-case spelling is not in the list the store matches
  const lower = body.toLowerCase();
  if (body !== lower && body !== body.toUpperCase()) return null;
  if (HYPHENATED.test(lower)) return { kind: 'uid', uid: lower };
  if (BARE.test(lower)) return { kind: 'uid', uid: hyphenate(lower) };
  return null;
}

/**
 * Every spelling `parseLegacyParentKey` reads as this session: the text list the store
 * matches keys against. `parseLegacyParentKey(s)` names the session for each of them, and
 * for no other string.
 */
export function legacyParentKeySpellings(session: { id: number; uid: string }): string[] {
  const bare = session.uid.replace(/-/g, '');
  const bodies = [session.uid, session.uid.toUpperCase(), bare, bare.toUpperCase()];
  return [String(session.id), `#${session.id}`, ...bodies, ...bodies.map((b) => `uid:${b}`)];
}

/** Whether a stored key names this session. */
export function legacyKeyNames(key: string | null | undefined, session: { id: number; uid: string }): boolean {
  const ref = parseLegacyParentKey(key);
  if (!ref) return false;
  return ref.kind === 'id' ? ref.id === session.id : ref.uid === session.uid;
}

/**
 * What the store probes its index with for this session's juniors: the id and the bare
 * lowercase uid. Removing `uid:`, `#` and `-` and lowercasing turns every spelling in
 * `legacyParentKeySpellings(session)` into one of these two, so a level of the walk probes
 * two values per senior rather than ten; the store then keeps only keys that are exactly
 * one of the spellings, so nothing outside the list matches.
 */
export function legacyParentKeyProbes(session: { id: number; uid: string }): string[] {
  return [String(session.id), session.uid.replaceAll('-', '').toLowerCase()];
}
