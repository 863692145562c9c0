import type { Executor } from './dialect/dialect.js';

/** Claims Slack's delivery keys (unique): a retry of an event already acted on fails the insert. */
export async function claimSlackDeliveries(db: Executor, keys: readonly string[], receivedAt: string): Promise<void> {
  if (keys.length === 0) return;
  await db
    .insertInto('slack_deliveries')
    .values(keys.map((key) => ({ key, received_at: receivedAt })))
    .execute();
}

/** Whether any of these delivery keys was claimed before. */
export async function anySlackDeliverySeen(db: Executor, keys: readonly string[]): Promise<boolean> {
  if (keys.length === 0) return false;
  const row = await db
    .selectFrom('slack_deliveries')
    .select('key')
    .where('key', 'in', [...keys])
    .executeTakeFirst();
  return !!row;
}

/** The session a Slack thread started, if Warrant started one there. */
export async function sessionOfSlackThread(db: Executor, channel: string, threadTs: string): Promise<number | null> {
  const row = await db.selectFrom('slack_threads').select('session_id').where('channel', '=', channel).where('thread_ts', '=', threadTs).executeTakeFirst();
  return row ? Number(row.session_id) : null;
}

export async function insertSlackThread(db: Executor, channel: string, threadTs: string, sessionId: number): Promise<void> {
  await db.insertInto('slack_threads').values({ channel, thread_ts: threadTs, session_id: sessionId }).execute();
}
