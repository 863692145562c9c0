import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql, type Dialect, type ColumnDefinitionBuilder } from 'kysely';
import type { Database } from '../database.js';
import { encodeBound } from '../compiled-once.js';
import { QueryLog, registerStoreDialect, type StoreDialect } from './dialect.js';
import { SqliteDriver, type RowBuilder } from './sqlite-driver.js';
import { walCheckpointer, type WalCheckpointer } from './sqlite-checkpointer.js';

/** The slice of better-sqlite3 the driver uses. */
type SqliteDb = BetterSqlite3.Database;

/**
 * How a reader's rows become objects. Readers run in raw mode (arrays) and the row objects are
 * built here: better-sqlite3's own object rows cost about twice as much native time per row as the
 * arrays (the lineage walk reads ~150 rows of 13 columns per hierarchy). Same keys, same values,
 * later duplicate names win as before.
 *
 * The statement's row builder: one object literal with its column names as constant keys, so
 * every row has one shape from birth. Assigning the keys one by one cost about 30 times as much,
 * timed alone, for a 29-column session row (a list page is 51 of them), and leaves objects that
 * wide in V8's slow dictionary mode for every later read. The names are JSON-quoted string
 * literals; a `__proto__` column (which a literal would take as the prototype) is defined key by
 * key instead, as every row is where code generation is disallowed.
 */
function rowBuilderOf(columns: readonly string[]): RowBuilder {
  if (!columns.includes('__proto__')) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the source holds only quoted column names and indices
      return new Function('v', `return {${columns.map((c, i) => `${JSON.stringify(c)}: v[${i}]`).join(', ')}};`) as RowBuilder;
    } catch {
      // a Node run with --disallow-code-generation-from-strings: the rows are defined key by key
    }
  }
  return (values) => {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < columns.length; c++)
      Object.defineProperty(row, columns[c]!, { value: values[c], enumerable: true, writable: true, configurable: true });
    return row;
  };
}

class WarrantSqliteDialect implements Dialect {
  constructor(
    private readonly db: SqliteDb,
    private readonly reader: SqliteDb | null,
    private readonly checkpointer: WalCheckpointer | null,
    private readonly log: QueryLog,
  ) {}
  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver() {
    return new SqliteDriver(this.db, this.reader, this.checkpointer, this.log, rowBuilderOf);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}

const jsonTextFieldSql = (column: string, key: string): string => `cast(json_extract(${column}, '$.${key}') as text)`;

interface SqliteOptions {
  filename: string;
}

/** The driver's reader connection (sqlite-driver.ts): query-only, so a write sent to it fails instead of waiting on the writer. */
function openReader(filename: string): SqliteDb {
  const reader = new BetterSqlite3(filename);
  reader.pragma('query_only = ON');
  reader.pragma('busy_timeout = 10000');
  reader.pragma('temp_store = MEMORY');
  return reader;
}

export function openSqlite(options: SqliteOptions): StoreDialect {
  const db = new BetterSqlite3(options.filename);
  const journal = db.pragma('journal_mode = WAL', { simple: true });
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 10000');
  // a commit group's savepoints journal each page a member first changes (sqlite-driver.ts); past
  // 64 KiB that journal spills to a temporary file, which cost more than the group saved
  db.pragma('temp_store = MEMORY');
  // only WAL lets a reader read past the writer's open transaction; in another journal mode (an
  // in-memory store, a file system without shared memory) reads commit the open group first
  const reader = journal === 'wal' ? openReader(options.filename) : null;
  // checkpoints off the event loop (sqlite-checkpointer.ts); only a WAL has them
  // called from the worker's events: a throw there would be the process's uncaught exception, and
  // a setting not changed only leaves the writer checkpointing as it did
  const setAutocheckpoint = (pages: number) => {
    try {
      if (db.open) db.pragma(`wal_autocheckpoint = ${pages}`);
    } catch {
      // the writer keeps its current setting
    }
  };
  const checkpointer = journal === 'wal' ? walCheckpointer(options.filename, setAutocheckpoint) : null;
  const log = new QueryLog();
  const kysely = new Kysely<Database>({ dialect: new WarrantSqliteDialect(db, reader, checkpointer, log) });

  return registerStoreDialect({
    label: `SQLite ${options.filename}`,
    kysely,
    capabilities: { crossNodeNotify: false, updateInCte: false, chainsInSql: false, localStatements: true, lateralJoins: false },
    idColumn: (col: ColumnDefinitionBuilder) => col.primaryKey().autoIncrement(),
    idType: 'integer',
    byteOrderedText: 'text', // SQLite compares text with BINARY collation by default
    // the same text as the expression index, so the planner can use it
    jsonTextField: (column, key) => sql.raw<string | null>(jsonTextFieldSql(column, key)),
    jsonTextFieldSql,
    valueList: (values) => sql`(select value from json_each(${encodeBound(values, JSON.stringify)}))`,
    inRowsOf: (subquery) => sql`in ${subquery}`,
    valueTable: (values, _type, column) => sql`(select value as ${sql.raw(column)} from json_each(${encodeBound(values, JSON.stringify)}))`,
    expressionIndexSql: (name, table, expression) => `create index if not exists ${name} on ${table} (${expression})`,
    readSnapshot: (fn) =>
      kysely.connection().execute(async (db) => {
        await sql.raw('begin').execute(db);
        try {
          return await fn(db);
        } finally {
          await sql.raw('rollback').execute(db);
        }
      }),
    // SQLite has one writer: BEGIN IMMEDIATE already serializes every write transaction.
    lockGraph: async () => {},
    lockChain: async () => {},
    immutableTableSql: (table, { deleteAllowedWhenSessionGone, allowDelete }) => [
      `create trigger if not exists ${table}_no_update before update on ${table}
       begin select raise(abort, '${table} rows are immutable'); end`,
      ...(allowDelete
        ? []
        : [
            deleteAllowedWhenSessionGone
              ? `create trigger if not exists ${table}_no_delete before delete on ${table}
           when exists (select 1 from sessions where id = old.${deleteAllowedWhenSessionGone})
           begin select raise(abort, '${table} rows are immutable while their session exists'); end`
              : `create trigger if not exists ${table}_no_delete before delete on ${table}
           begin select raise(abort, '${table} rows are immutable'); end`,
          ]),
    ],
    writeOnceColumnsSql: (table, { fixed, setOnce }) => [
      `create trigger if not exists ${table}_fixed_columns before update of ${fixed.join(', ')} on ${table}
       when ${fixed.map((c) => `new.${c} is not old.${c}`).join(' or ')}
       begin select raise(abort, '${table} rows are immutable (only ${setOnce.join(', ')} may be set, once)'); end`,
      `create trigger if not exists ${table}_no_delete before delete on ${table}
       begin select raise(abort, '${table} rows are immutable'); end`,
      ...setOnce.map(
        (c) => `create trigger if not exists ${table}_${c}_once before update of ${c} on ${table}
       when old.${c} is not null and new.${c} is not old.${c}
       begin select raise(abort, '${table}.${c} is written once'); end`,
      ),
    ],
    refuseTruncateSql: () => [],
    dropImmutableTriggersSql: (table) => [
      `drop trigger if exists ${table}_no_update`,
      `drop trigger if exists ${table}_no_delete`,
      `drop trigger if exists ${table}_fixed_columns`,
    ],
    isUniqueViolation: (error) =>
      (typeof error === 'object' && error !== null && String((error as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT_UNIQUE')) ||
      String((error as { code?: unknown })?.code) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
    isForeignKeyViolation: (error) => String((error as { code?: unknown })?.code) === 'SQLITE_CONSTRAINT_FOREIGNKEY',
    notifyInTx: async () => {},
    listen: async () => async () => {},
    queryLog: log,
    destroy: () => kysely.destroy(),
  });
}
