import type pg from 'pg';
import { markRolledBack } from '../store-errors.js';
import { RESULT_UNUSED } from './dialect.js';

type Query = (text: unknown, values?: unknown, callback?: unknown) => unknown;
type Result = { command: string; rowCount: number | null; rows: unknown[] };

const OPENS_TRANSACTION = /^\s*(begin|start\s+transaction)\b/i;
const ENDS_TRANSACTION = /^\s*(commit|rollback|end|abort)\s*$/i;
const ROLLBACK = /^\s*(rollback|abort)\s*$/i;
const COMMIT = /^\s*(commit|end)\s*$/i;

/**
 * Sends a transaction's statements that nobody waits on together with the next one, on a client
 * in pg's pipeline mode: a transaction's BEGIN (Kysely ignores its answer) and statements marked
 * `RESULT_UNUSED`. They are corked until the next statement is written, so both go out in one
 * socket write and the server runs them back to back. What that buys is time under locks: the
 * chain lock, the audit append and the COMMIT leave together, so the lock is held for the
 * server's work and not for trips through this process's event loop, which every audited
 * write queued behind (bench/README.md). Fewer socket writes cost less CPU too.
 *
 * What a caller sees does not change: the statement that is waited for answers with its own
 * result, or with the error of the first held statement that failed (a failed statement aborts
 * the transaction, so the ones after it fail only because of it). A COMMIT after a failed held
 * statement rolls back and throws that statement's error; a ROLLBACK swallows it. Outside a
 * transaction nothing is held: a marked statement is sent and waited for as any other, so a
 * connection never goes back to the pool with something unsent or unanswered.
 */
export function pipelineStatements(client: pg.PoolClient): void {
  const send = client.query.bind(client) as Query;
  const socket = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;
  let inTransaction = false;
  let held: Promise<Result>[] = [];

  const hold = (text: string, values: unknown): void => {
    socket.cork();
    const answer = send(text, values) as Promise<Result>;
    // answered (or failed) through the statement it is sent with
    answer.catch(() => {});
    held.push(answer);
  };
  const release = (): Promise<Result>[] => {
    const earlier = held;
    held = [];
    for (let i = 0; i < earlier.length; i++) socket.uncork();
    return earlier;
  };

  (client as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown): unknown => {
    if (typeof config !== 'string' || callback !== undefined) {
      // not Kysely's call: sent as it is, never left corked behind what is held, and answered
      // with a held statement's failure as a string statement would be when it returns a promise
      const answer = send(config, values, callback);
      if (held.length === 0) return answer;
      const earlier = release();
      return answer instanceof Promise ? answerAfter(earlier, answer as Promise<Result>, { rollingBack: false, committing: false }) : answer;
    }
    if (OPENS_TRANSACTION.test(config) && !inTransaction) {
      inTransaction = true;
      hold(config, values);
      return Promise.resolve<Result>({ command: 'BEGIN', rowCount: null, rows: [] });
    }
    if (inTransaction && config.startsWith(RESULT_UNUSED)) {
      hold(config, values);
      return Promise.resolve<Result>({ command: '', rowCount: null, rows: [] });
    }
    const answer = send(config, values) as Promise<Result>;
    if (ENDS_TRANSACTION.test(config)) inTransaction = false;
    if (held.length === 0) return answer;
    return answerAfter(release(), answer, { rollingBack: ROLLBACK.test(config), committing: COMMIT.test(config) });
  };
}

async function answerAfter(
  earlier: readonly Promise<Result>[],
  answer: Promise<Result>,
  statement: { rollingBack: boolean; committing: boolean },
): Promise<Result> {
  const settled = await Promise.allSettled(earlier);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (!failed || statement.rollingBack) return answer;
  // the statement was written behind the failed one: wait for its answer so nothing is left on the wire
  const answered = await answer.then(
    () => true,
    () => false,
  );
  // a COMMIT the server answered after a failed statement was a rollback: the outcome is known
  if (statement.committing && answered) markRolledBack(failed.reason);
  throw failed.reason;
}
