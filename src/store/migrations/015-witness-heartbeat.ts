import type { Kysely } from 'kysely';

/**
 * docs/design/terminal-channel.md: the witness's last sign of life. A runner killed before its
 * closing report leaves its session running; a run whose witness fell silent is a gap.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('terminal_witnesses').addColumn('heard_at', 'text').execute();
}
