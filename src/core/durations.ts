/**
 * Durations in settings, as people type them: a number and a unit (`90s`, `15m`, `12h`,
 * `7d`, `2w`), or `off`. Returns milliseconds, null for `off`, undefined when unreadable.
 * @example parseDuration('7d') // 604800000
 */
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseDuration(text: string): number | null | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'off' || t === 'never') return null;
  const m = /^(\d{1,6})\s*([smhdw])$/.exec(t);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms > 0 ? ms : undefined;
}

/** The shortest exact spelling of a duration. @example formatDuration(86400000) // '1d' */
export function formatDuration(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm', 's']) {
    const size = UNIT_MS[unit]!;
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}
