/**
 * The order an event's details are shown in, on every surface that lists them. Evidence
 * events store their details as canonical JSON (keys sorted, the very text their digest is of:
 * docs/audit-log.md), so stored order says nothing; a change reads as what changed, from what,
 * to what — `field`, `old`, `new` — and everything else follows by name.
 * @example detailEntries({ new: 'b', field: 'title', old: 'a' }) // [['field', 'title'], ['old', 'a'], ['new', 'b']]
 */
const LEADING = ['field', 'old', 'new'];

export function detailEntries(details: Record<string, unknown>): [string, unknown][] {
  const rank = (key: string) => {
    const i = LEADING.indexOf(key);
    return i === -1 ? LEADING.length : i;
  };
  return Object.entries(details).sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}
