import pg from 'pg';
import { Kysely, PostgresDialect, sql, type Transaction, type ColumnDefinitionBuilder } from 'kysely';
import type { Database } from '../database.js';
import { QueryLog, registerStoreDialect, RESULT_UNUSED, withoutResultUnused, type StoreDialect } from './dialect.js';
import { pipelineStatements } from './postgres-pipeline.js';

// Transaction-scoped advisory lock keys (docs/operations.md: graph lock first, then the chain lock).
const GRAPH_LOCK_KEY = 0x57_52_47_01; // 'WRG' 1
export const CHAIN_LOCK_KEY = 0x57_52_43_02; // 'WRC' 2

const INT8_OID = 20;

const jsonTextFieldSql = (column: string, key: string): string => `((${column}::jsonb ->> '${key}'))`;

interface PostgresOptions {
  connectionString: string;
  maxConnections?: number;
}

/** pg returns int8 and count(*) as strings; ids stay below 2^53 (docs/operations.md), so map them here. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/** Distinct read statements one connection keeps prepared; past it, reads are parsed and planned each time. */
const PREPARED_READS_PER_CONNECTION = 256;
/** The same for writes, apart: one-off write texts (an `in` list of each length) never take a read's place. */
const PREPARED_WRITES_PER_CONNECTION = 128;
const READ_STATEMENT = /^\s*(select|with)\b/i;
const WRITE_STATEMENT = /^\s*(insert|update|delete)\b/i;
/** a `with` whose parts change rows (the live-event and audit statement, live-repo.ts): a write */
const DATA_MODIFYING_WITH = /^\s*with\b[\s\S]*\b(insert\s+into|update\s+\S+\s+set|delete\s+from)\b/i;

function statementKind(marked: string): 'read' | 'write' | null {
  const text = withoutResultUnused(marked);
  if (WRITE_STATEMENT.test(text) || DATA_MODIFYING_WITH.test(text)) return 'write';
  return READ_STATEMENT.test(text) ? 'read' : null;
}

/**
 * Statements with parameters run as named prepared statements, parsed and planned once per
 * connection. Reads: the lineage walk's statements are long unions whose text never changes
 * (lists are one array parameter), and parsing and planning them again cost more than running
 * them. Their plan is the generic one, kept: left to choose, PostgreSQL went on re-planning the
 * walk's statements for each call's arrays (about 40 % of a walk, bench/lineage-bench.ts).
 * Writes: the write path's statements are compiled once (compiled-once.ts), so their texts
 * repeat too, and the server's parse and plan of each was a tenth and more of an agent
 * message's cost on a 2-core machine (bench/README.md). Each kind has its own budget.
 */
function prepareStatements(client: pg.PoolClient): void {
  client.query('set plan_cache_mode = force_generic_plan').catch(() => {});
  const reads = new Map<string, string>();
  const writes = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    const known = reads.get(text) ?? writes.get(text);
    if (known !== undefined) return known;
    const kind = statementKind(text);
    const [names, budget, prefix] =
      kind === 'read'
        ? ([reads, PREPARED_READS_PER_CONNECTION, 'warrant_'] as const)
        : kind === 'write'
          ? ([writes, PREPARED_WRITES_PER_CONNECTION, 'warrant_w'] as const)
          : ([null, 0, ''] as const);
    if (!names || names.size >= budget) return undefined;
    const name = `${prefix}${names.size}`;
    names.set(text, name);
    return name;
  };
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown): unknown => {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      const name = nameOf(config);
      if (name !== undefined) return query({ name, text: config, values }, callback);
    }
    return query(config, values, callback);
  };
}

export function openPostgres(options: PostgresOptions): StoreDialect {
  const log = new QueryLog();
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    types,
    // statements nobody waits on go out with the next one (postgres-pipeline.ts)
    pipeline: true,
  });
  // An idle client that errors (server restart) must not crash the process.
  pool.on('error', () => {});
  // Nor one that is checked out between two queries when its connection dies (a terminated
  // backend, a failover): pg emits 'error' on it, and without a listener that is fatal. The
  // query that uses it next fails and is reported to its caller.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    prepareStatements(client);
    pipelineStatements(client);
  });
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') log.record(event.query.sql, event.query.parameters);
    },
  });
  const listeners: pg.Client[] = [];

  return registerStoreDialect({
    label: `PostgreSQL ${redact(options.connectionString)}`,
    kysely,
    capabilities: { crossNodeNotify: true, updateInCte: true, chainsInSql: true, localStatements: false, lateralJoins: true },
    idColumn: (col: ColumnDefinitionBuilder) => col.primaryKey().generatedByDefaultAsIdentity(),
    idType: 'bigint',
    byteOrderedText: 'text collate "C"',
    // the same text as the expression index, so the planner can use it
    jsonTextField: (column, key) => sql.raw<string | null>(jsonTextFieldSql(column, key)),
    jsonTextFieldSql,
    inRowsOf: (subquery) => sql`= any(array${subquery})`,
    valueTable: (values, type, column) => sql`(select unnest(cast(${values} as ${sql.raw(type === 'bigint' ? 'bigint[]' : 'text[]')})) as ${sql.raw(column)})`,
    valueList: (values, type) => (type === 'bigint' ? sql`(select unnest(cast(${values} as bigint[])))` : sql`(select unnest(cast(${values} as text[])))`),
    expressionIndexSql: (name, table, expression) => `create index if not exists ${name} on ${table} (${expression})`,
    readSnapshot: (fn) =>
      kysely.connection().execute(async (db) => {
        await sql.raw('begin isolation level repeatable read read only').execute(db);
        try {
          return await fn(db);
        } finally {
          await sql.raw('rollback').execute(db);
        }
      }),
    lockGraph: async (tx: Transaction<Database>) => {
      await sql`select pg_advisory_xact_lock(${GRAPH_LOCK_KEY})`.execute(tx);
    },
    lockChain: async (tx: Transaction<Database>) => {
      // nobody waits for it: the append that follows reads the head in its own statement,
      // which the server runs once the lock is granted (chainsInSql)
      await sql`${sql.raw(RESULT_UNUSED)}select pg_advisory_xact_lock(${CHAIN_LOCK_KEY})`.execute(tx);
    },
    immutableTableSql: (table, { deleteAllowedWhenSessionGone, allowDelete }) => [
      `create or replace function ${table}_immutable() returns trigger language plpgsql as $$
       begin
         if tg_op = 'UPDATE' then
           raise exception '${table} rows are immutable' using errcode = 'restrict_violation';
         end if;
         ${
           allowDelete
             ? 'return old;'
             : deleteAllowedWhenSessionGone
               ? `if exists (select 1 from sessions where id = old.${deleteAllowedWhenSessionGone}) then
           raise exception '${table} rows are immutable while their session exists' using errcode = 'restrict_violation';
         end if;
         return old;`
               : `raise exception '${table} rows are immutable' using errcode = 'restrict_violation';`
         }
       end $$`,
      `drop trigger if exists ${table}_immutable on ${table}`,
      `create trigger ${table}_immutable before update or delete on ${table}
       for each row execute function ${table}_immutable()`,
    ],
    writeOnceColumnsSql: (table, { fixed, setOnce }) => [
      `create or replace function ${table}_write_once() returns trigger language plpgsql as $$
       begin
         if tg_op = 'DELETE' then
           raise exception '${table} rows are immutable' using errcode = 'restrict_violation';
         end if;
         if ${fixed.map((c) => `new.${c} is distinct from old.${c}`).join(' or ')}${setOnce.map((c) => ` or (old.${c} is not null and new.${c} is distinct from old.${c})`).join('')} then
           raise exception '${table} rows are immutable (only ${setOnce.join(', ')} may be set, once)' using errcode = 'restrict_violation';
         end if;
         return new;
       end $$`,
      `drop trigger if exists ${table}_write_once on ${table}`,
      `create trigger ${table}_write_once before update or delete on ${table} for each row execute function ${table}_write_once()`,
    ],
    refuseTruncateSql: (table) => [
      `create or replace function warrant_refuse_truncate() returns trigger language plpgsql as $$
       begin
         raise exception '% is evidence: TRUNCATE is refused', tg_table_name using errcode = 'restrict_violation';
       end $$`,
      `drop trigger if exists ${table}_no_truncate on ${table}`,
      `create trigger ${table}_no_truncate before truncate on ${table} for each statement execute function warrant_refuse_truncate()`,
    ],
    dropImmutableTriggersSql: (table) => [
      `drop trigger if exists ${table}_immutable on ${table}`,
      `drop trigger if exists ${table}_write_once on ${table}`,
      `drop trigger if exists ${table}_no_truncate on ${table}`,
    ],
    isUniqueViolation: (error) => (error as { code?: unknown })?.code === '23505',
    isForeignKeyViolation: (error) => (error as { code?: unknown })?.code === '23503',
    notifyInTx: async (tx, channel, payload) => {
      // Ids only: a NOTIFY payload is capped at 8,000 bytes and an oversized one aborts the commit.
      await sql`${sql.raw(RESULT_UNUSED)}select pg_notify(${channel}, ${payload})`.execute(tx);
    },
    listen: async (channel, onPayload) => {
      const client = new pg.Client({ connectionString: options.connectionString });
      client.on('error', () => {});
      await client.connect();
      client.on('notification', (msg) => {
        if (msg.channel === channel) onPayload(msg.payload ?? '');
      });
      await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      listeners.push(client);
      return async () => {
        const i = listeners.indexOf(client);
        if (i >= 0) listeners.splice(i, 1);
        await client.end().catch(() => {});
      };
    },
    queryLog: log,
    destroy: async () => {
      await Promise.all(listeners.splice(0).map((c) => c.end().catch(() => {})));
      await kysely.destroy();
    },
  });
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):([^@/]+)@/, '//$1:***@');
}
