import type { Kysely } from 'kysely';
import type { StoreDialect } from '../dialect/dialect.js';

/**
 * docs/design/terminal-channel.md: the terminal witness.
 * - `terminal_witnesses`: one row per activation a witness credential was minted for (the
 *   credential itself is a `witness` row in `tokens`, revoked like any other), with the
 *   closing report (`closed_at`, `closed_turns`) once it arrives.
 * - `terminal_turns`: every non-empty turn the runner relayed from its TTY (digest and
 *   length, never the words); `human_message_id` once a witnessed prompt consumed it.
 * - `prompt_reports`: every prompt the agent's hook reported through `…/prompts`, and what the
 *   server matched it to (an inbox item it delivered, a witnessed turn, the run's `--prompt`).
 * - `run_prompts`: the `--prompt` text recorded for an activation (its digest and length),
 *   which the activation's first prompt report must equal.
 * - `human_messages.witness_isolation`: for a witnessed record, whether the agent ran as
 *   another OS user than the witness (`other-uid`) or the same one (`same-uid`).
 */
export async function up(db: Kysely<any>, d: StoreDialect): Promise<void> {
  await db.schema
    .createTable('terminal_witnesses')
    .addColumn('session_id', d.idType, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('activation', 'integer', (c) => c.notNull())
    .addColumn('credential_id', d.idType, (c) => c.notNull())
    .addColumn('user_id', d.idType, (c) => c.notNull())
    .addColumn('minted_at', 'text', (c) => c.notNull())
    .addColumn('closed_at', 'text')
    .addColumn('closed_turns', 'integer')
    .addPrimaryKeyConstraint('terminal_witnesses_pk', ['session_id', 'activation'])
    .execute();

  await db.schema
    .createTable('terminal_turns')
    .addColumn('id', d.idType, (c) => d.idColumn(c))
    .addColumn('session_id', d.idType, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('activation', 'integer', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('length', 'integer', (c) => c.notNull())
    .addColumn('reliable', 'integer', (c) => c.notNull())
    .addColumn('pasted', 'integer', (c) => c.notNull())
    .addColumn('reported_at', 'text', (c) => c.notNull())
    .addColumn('human_message_id', d.idType)
    .addColumn('consumed_at', 'text')
    .execute();
  await db.schema.createIndex('terminal_turns_run_idx').on('terminal_turns').columns(['session_id', 'activation', 'id']).execute();

  await db.schema
    .createTable('prompt_reports')
    .addColumn('id', d.idType, (c) => d.idColumn(c))
    .addColumn('session_id', d.idType, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('activation', 'integer', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('length', 'integer', (c) => c.notNull())
    .addColumn('reported_at', 'text', (c) => c.notNull())
    // 'inbox_item' | 'terminal_turn' | 'run_prompt', or null while nothing matched it
    .addColumn('matched_kind', 'text')
    .addColumn('matched_inbox_item_id', d.idType)
    .addColumn('matched_turn_id', d.idType)
    .addColumn('matched_at', 'text')
    .execute();
  await db.schema.createIndex('prompt_reports_run_idx').on('prompt_reports').columns(['session_id', 'activation', 'digest']).execute();

  await db.schema
    .createTable('run_prompts')
    .addColumn('session_id', d.idType, (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('activation', 'integer', (c) => c.notNull())
    .addColumn('human_message_id', d.idType, (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('length', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('run_prompts_pk', ['session_id', 'activation'])
    .execute();

  await db.schema.alterTable('human_messages').addColumn('witness_isolation', 'text').execute();
}
