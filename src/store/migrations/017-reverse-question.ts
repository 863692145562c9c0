import type { Kysely } from 'kysely';

/**
 * docs/attribution.md "What a person caused": the reverse question reads events by actor, cause
 * or credential (newest first) and walks sessions by cause and creator, each through an index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('session_events_actor_idx').on('session_events').columns(['actor_id', 'id']).execute();
  await db.schema.createIndex('session_events_cause_idx').on('session_events').columns(['caused_by_actor_id', 'id']).execute();
  await db.schema.createIndex('session_events_credential_idx').on('session_events').columns(['credential_id', 'id']).execute();
  await db.schema.createIndex('sessions_cause_idx').on('sessions').columns(['cause_actor_id', 'id']).execute();
  await db.schema.createIndex('sessions_creator_idx').on('sessions').columns(['creator_actor_id', 'id']).execute();
}
