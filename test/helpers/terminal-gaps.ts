/** Reads a path of the REST API as JSON with some credential (each suite brings its own). */
export type ApiGet = (path: string) => Promise<any>;

/** The terminal gaps the gate lists for a session. */
export async function terminalGaps(get: ApiGet, id: number): Promise<any[]> {
  return ((await get(`/api/v1/sessions/${id}/warrant`)).gaps as any[]).filter((g) => g.channel === 'terminal');
}

/**
 * The terminal gap of a run whose turn or report matched nothing: the runner's last reports
 * may still be landing when the agent has exited, so this polls until one shows (at most 20 s).
 */
export async function terminalGapOf(get: ApiGet, id: number): Promise<any[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const gaps = await terminalGaps(get, id);
    if (gaps.length > 0 || Date.now() > until) return gaps;
    await new Promise((r) => setTimeout(r, 250));
  }
}
