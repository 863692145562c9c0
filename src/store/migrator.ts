import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { StoreDialect } from './dialect/dialect.js';
import type { MigrationHooks } from './migration-hooks.js';
import * as foundation from './migrations/001-foundation.js';
import * as lineage from './migrations/002-lineage.js';
import * as humanMessages from './migrations/003-human-messages.js';
import * as attribution from './migrations/004-attribution.js';
import * as agentMessages from './migrations/005-agent-messages.js';
import * as web from './migrations/006-web.js';
import * as deletionLinks from './migrations/007-deletion-links.js';
import * as runtimeChildrenTranscripts from './migrations/008-runtime-children-transcripts.js';
import * as acknowledgedDelivery from './migrations/009-acknowledged-delivery.js';
import * as serverSecret from './migrations/011-server-secret.js';
import * as terminalChannel from './migrations/012-terminal-channel.js';
import * as terminalWitness from './migrations/013-terminal-witness.js';
import * as evidenceRewriteRefused from './migrations/014-evidence-rewrite-refused.js';
import * as witnessHeartbeat from './migrations/015-witness-heartbeat.js';
import * as auditMerkleTree from './migrations/016-audit-merkle-tree.js';
import * as reverseQuestion from './migrations/017-reverse-question.js';
import * as lineageVersions from './migrations/018-lineage-versions.js';
import * as messagesByTarget from './migrations/019-messages-by-target.js';
import * as legacyKeyProbe from './migrations/020-legacy-key-probe.js';

type MigrationModule = { up: (db: Kysely<any>, dialect: StoreDialect, hooks: MigrationHooks) => Promise<void> };

/** Ordered by name; later capabilities append their own file here. */
const MIGRATIONS: Record<string, MigrationModule> = {
  '001-foundation': foundation,
  '002-lineage': lineage,
  '003-human-messages': humanMessages,
  '004-attribution': attribution,
  '005-agent-messages': agentMessages,
  '006-web': web,
  '007-deletion-links': deletionLinks,
  '008-runtime-children-transcripts': runtimeChildrenTranscripts,
  '009-acknowledged-delivery': acknowledgedDelivery,
  '011-server-secret': serverSecret,
  '012-terminal-channel': terminalChannel,
  '013-terminal-witness': terminalWitness,
  '014-evidence-rewrite-refused': evidenceRewriteRefused,
  '015-witness-heartbeat': witnessHeartbeat,
  '016-audit-merkle-tree': auditMerkleTree,
  '017-reverse-question': reverseQuestion,
  '018-lineage-versions': lineageVersions,
  '019-messages-by-target': messagesByTarget,
  '020-legacy-key-probe': legacyKeyProbe,
};

class InCodeProvider implements MigrationProvider {
  constructor(
    private readonly dialect: StoreDialect,
    private readonly hooks: MigrationHooks,
  ) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, mod] of Object.entries(MIGRATIONS)) {
      out[name] = { up: (db) => mod.up(db, this.dialect, this.hooks) };
    }
    return out;
  }
}

/** Runs pending migrations; the same logical schema on both dialects. */
export async function migrateToLatest(dialect: StoreDialect, hooks: MigrationHooks = {}): Promise<string[]> {
  const migrator = new Migrator({
    db: dialect.kysely,
    provider: new InCodeProvider(dialect, hooks),
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    // capabilities land their migrations independently: a store that ran a later one first
    // (a development build) still takes an earlier one it lacks, instead of refusing to start
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
