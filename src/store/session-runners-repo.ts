import { compiledOnce, inIdList } from './compiled-once.js';
import type { Executor } from './dialect/dialect.js';

/** What a runner said about itself when it attached (docs/design/terminal-channel.md). */
export interface RunnerFacts {
  /** standard input was a terminal: a person may have typed to the agent */
  tty: boolean;
}

export async function recordRunnerFacts(db: Executor, r: { sessionId: number; activation: number; runner: RunnerFacts; now: string }): Promise<void> {
  await db
    .insertInto('session_runners')
    .values({ session_id: r.sessionId, activation: r.activation, tty: r.runner.tty ? 1 : 0, attached_at: r.now })
    .execute();
}

const terminalRunnerRows = compiledOnce((db, p: { sessionIds: readonly number[] }, d) =>
  db
    .selectFrom('session_runners')
    .select(['session_id', 'activation', 'attached_at'])
    .where(inIdList(d, 'session_id', p.sessionIds))
    .where('tty', '=', 1)
    .orderBy('session_id')
    .orderBy('activation'),
);

/** Every activation, current or past, of these sessions whose runner had a TTY; oldest first. */
export async function terminalActivationsOf(
  db: Executor,
  sessionIds: readonly number[],
): Promise<{ sessionId: number; activation: number; attachedAt: string }[]> {
  if (sessionIds.length === 0) return [];
  const rows = await terminalRunnerRows(db, { sessionIds: [...new Set(sessionIds)] });
  return rows.map((r) => ({ sessionId: Number(r.session_id), activation: Number(r.activation), attachedAt: r.attached_at }));
}
