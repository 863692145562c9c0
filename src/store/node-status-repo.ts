import { sql } from 'kysely';
import type { Executor } from './dialect/dialect.js';

/** One round trip that proves the store answers (health and metrics). */
export async function pingStore(db: Executor): Promise<void> {
  await sql`select 1`.execute(db);
}

/** Inbox items still waiting to be delivered (pending or leased), across every session. */
export async function openInboxDepth(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('inbox_items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', 'in', ['pending', 'leased'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
