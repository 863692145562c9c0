/**
 * Failed-attempt throttling for password sign-in: after `limit` failures for one key within
 * `windowMs`, further attempts for that key are refused until the oldest failure in the window
 * ages out. Pure bookkeeping over times the caller passes in; the state lives in one process
 * (each node counts its own attempts — a bound on guessing, not an account lock).
 */
const SIGN_IN_FAILURE_LIMIT = 5;
const SIGN_IN_FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** keys tracked at most (oldest dropped first), so guessing random keys cannot grow memory without bound */
const MAX_TRACKED_KEYS = 10_000;

export class AttemptThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit = SIGN_IN_FAILURE_LIMIT,
    private readonly windowMs = SIGN_IN_FAILURE_WINDOW_MS,
  ) {}

  private recent(key: string, now: number): number[] {
    const kept = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }

  /** Milliseconds until `key` may try again; 0 when it may try now. */
  retryAfterMs(key: string, now: number): number {
    const recent = this.recent(key, now);
    if (recent.length < this.limit) return 0;
    return recent[recent.length - this.limit]! + this.windowMs - now;
  }

  fail(key: string, now: number): void {
    const recent = this.recent(key, now);
    this.failures.delete(key); // re-insert: the map's order is least recently failed first
    this.failures.set(key, [...recent, now]);
    while (this.failures.size > MAX_TRACKED_KEYS) this.failures.delete(this.failures.keys().next().value!);
  }

  succeed(key: string): void {
    this.failures.delete(key);
  }
}
