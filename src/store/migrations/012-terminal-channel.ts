import type { Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/**
 * docs/design/terminal-channel.md: what the runner said about itself when it attached, one
 * row per activation that said anything. `tty` = standard input was a terminal, so a person
 * may have typed to the agent there: the hierarchy's terminal channel is then a candidate.
 * Kept for past activations too: a re-attach without a TTY does not erase an earlier one.
 */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  await db.schema
    .createTable('session_runners')
    .addColumn('session_id', d.idType, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('activation', 'integer', (c) => c.notNull())
    .addColumn('tty', 'integer', (c) => c.notNull())
    .addColumn('attached_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_runners_pk', ['session_id', 'activation'])
    .execute();
}
