/**
 * docs/concepts.md: the syntax half of the one resolver. The store half looks the
 * parsed ref up. Digits are always ids; uid prefixes need a letter a–f or `uid:`.
 */
export type ParsedSessionRef =
  | { kind: 'id'; id: number }
  | { kind: 'uid'; uid: string } // a full UUID, lowercase, hyphenated
  | { kind: 'uid-prefix'; prefix: string } // lowercase hex with hyphens at UUID positions
  | { kind: 'invalid'; reason: 'empty' | 'prefix-too-short' | 'malformed' | 'id-out-of-range' | 'prefix-not-allowed' };

const MIN_UID_PREFIX = 8;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX_RE = /^[0-9a-f]+$/;

/** Re-inserts hyphens at the UUID positions so a hyphen-free prefix can be range-matched. */
export function hyphenateUidPrefix(hex: string): string {
  const cuts = [8, 12, 16, 20];
  let out = '';
  for (let i = 0; i < hex.length; i++) {
    if (cuts.includes(i)) out += '-';
    out += hex[i];
  }
  return out;
}

/**
 * Parses a session ref.
 * @example parseSessionRef('#42') // {kind:'id', id:42}
 * @example parseSessionRef('3f2a9c1e') // {kind:'uid-prefix', prefix:'3f2a9c1e'}
 * @param allowPrefix false where a stored reference is read (no prefixes there, docs/concepts.md)
 */
export function parseSessionRef(raw: string, allowPrefix = true): ParsedSessionRef {
  const ref = raw.trim();
  if (ref === '') return { kind: 'invalid', reason: 'empty' };
  const digits = ref.startsWith('#') ? ref.slice(1) : ref;
  if (/^[0-9]+$/.test(digits)) {
    const id = Number(digits);
    if (!Number.isSafeInteger(id) || id <= 0) return { kind: 'invalid', reason: 'id-out-of-range' };
    return { kind: 'id', id };
  }
  if (ref.startsWith('#')) return { kind: 'invalid', reason: 'malformed' };
  const explicit = ref.toLowerCase().startsWith('uid:');
  const body = (explicit ? ref.slice(4) : ref).toLowerCase();
  if (UUID_RE.test(body)) return { kind: 'uid', uid: body };
  const hex = body.replace(/-/g, '');
  if (!HEX_RE.test(hex) || hex.length > 32) return { kind: 'invalid', reason: 'malformed' };
  if (!explicit && !/[a-f]/.test(hex)) return { kind: 'invalid', reason: 'malformed' };
  if (hex.length === 32) return { kind: 'uid', uid: hyphenateUidPrefix(hex) };
  if (!allowPrefix) return { kind: 'invalid', reason: 'prefix-not-allowed' };
  if (hex.length < MIN_UID_PREFIX) return { kind: 'invalid', reason: 'prefix-too-short' };
  return { kind: 'uid-prefix', prefix: hyphenateUidPrefix(hex) };
}

/** The exclusive upper bound of a prefix range: every string starting with `prefix` sorts below it. */
export function prefixUpperBound(prefix: string): string {
  return prefix + '\u007f';
}
