import type { Kysely } from 'kysely';

/**
 * A session page lists the agent messages it received next to those it sent, newest first:
 * received ones are found by target through this index, as sent ones already are by source.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('agent_messages_target_seq_idx').on('agent_messages').columns(['target_session_id', 'seq']).execute();
}
