import type { Kysely, Transaction, ColumnDefinitionBuilder, RawBuilder } from 'kysely';
import type { Database } from '../database.js';

export type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Opens a statement whose caller never reads its result (a lock, a counter bump, a wake-up):
 * inside a transaction on PostgreSQL it is not waited for but written with the statement after
 * it, in one socket write (postgres-pipeline.ts); its failure is that statement's. Elsewhere it
 * is a comment. Only for statements whose errors need no handling of their own.
 */
export const RESULT_UNUSED = '/* result unused */ ';

/** A statement's text without the RESULT_UNUSED mark (what it does, for a reader of the text). */
export function withoutResultUnused(text: string): string {
  return text.startsWith(RESULT_UNUSED) ? text.slice(RESULT_UNUSED.length) : text;
}

/**
 * Everything that differs between SQLite and PostgreSQL sits behind this interface, with
 * one file per dialect (sqlite.ts, postgres.ts). Queries elsewhere are written once.
 */
export interface StoreDialect {
  /** for logs and the start banner only; never branch on it — use the capabilities */
  readonly label: string;
  readonly kysely: Kysely<Database>;
  readonly capabilities: {
    /** several processes may share the store and wake each other (LISTEN/NOTIFY) */
    crossNodeNotify: boolean;
    /** an UPDATE … RETURNING may feed an INSERT in one statement (a data-modifying CTE) */
    updateInCte: boolean;
    /**
     * the server chains audit rows itself (sha256 in SQL: auditRowsFromHeadCtes), so an append
     * under the chain lock reads the head in its own statement and nobody waits for the lock's answer
     */
    chainsInSql: boolean;
    /**
     * a statement costs no network round trip (an embedded engine): a read may take more rows
     * and sort them in the process where the engine's sort costs more (lineage-juniors-repo.ts)
     */
    localStatements: boolean;
    /** LATERAL joins: a recursive statement may join each row to a subquery of its own (reachability-repo.ts) */
    lateralJoins: boolean;
  };

  /** The primary key column of an append-only table: never reused. */
  idColumn(col: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** the SQL type of an auto id referenced by foreign keys */
  readonly idType: 'integer' | 'bigint';
  /** A text column compared byte-wise (uids: range scans for prefixes). */
  readonly byteOrderedText: string;
  /** `custom_metadata`'s legacy key as text, for the expression index and lineage reads. */
  jsonTextField(column: string, key: string): RawBuilder<string | null>;
  /** SQL for an index on an expression (the legacy key). */
  expressionIndexSql(name: string, table: string, expression: string): string;
  /** The expression text of jsonTextField, for DDL. */
  jsonTextFieldSql(column: string, key: string): string;
  /**
   * A set of values for `x in <valueList>`, bound as ONE parameter whatever its length, so a
   * statement's text (and SQLite's prepared statement) does not change with the list — the
   * lineage walk's batches vary in size on every level.
   */
  valueList(values: readonly (number | string)[], type: 'bigint' | 'text'): RawBuilder<unknown>;
  /**
   * Membership in a subquery's rows, for a probe that must stay an index read: `x ${inRowsOf(sub)}`
   * (`sub` parenthesised). PostgreSQL gets `= any(array(…))`: with a plain `in`, a generic plan
   * that guesses hundreds of rows for the subquery hashes it against a scan of the whole probed
   * table (the uncle table at 1,000,000 sessions: 55 ms against 2 ms, bench/README.md).
   */
  inRowsOf(subquery: RawBuilder<unknown>): RawBuilder<unknown>;
  /** The same set as a table to join, its one column named `column` (bound as one parameter too). */
  valueTable(values: readonly (number | string)[], type: 'bigint' | 'text', column: string): RawBuilder<unknown>;

  /**
   * Runs `fn`'s reads on one consistent snapshot without taking any write lock (SQLite: a
   * deferred read transaction under WAL; PostgreSQL: REPEATABLE READ READ ONLY), so a long
   * check (`warrant audit verify --records`) sees the log and the records as of one moment.
   */
  readSnapshot<T>(fn: (db: Executor) => Promise<T>): Promise<T>;

  /** Serializes graph writes: taken first in a graph-writing transaction (docs/operations.md). */
  lockGraph(tx: Transaction<Database>): Promise<void>;
  /**
   * Serializes audit-chain appends: taken after the graph lock and before the live-event counter
   * (the write's last statement takes both, live-repo.ts), held to commit (docs/attribution.md).
   */
  lockChain(tx: Transaction<Database>): Promise<void>;

  /**
   * Triggers that refuse UPDATE always and DELETE — optionally only while the session row
   * exists (the session's own deletion cascade), or never (`allowDelete`: rows are removed
   * as acts of their own, each logged).
   */
  immutableTableSql(table: string, options: { deleteAllowedWhenSessionGone?: string; allowDelete?: boolean }): string[];
  /**
   * Triggers that refuse DELETE, UPDATE of `fixed` columns, and UPDATE of each `setOnce`
   * column once it holds a value (a revocation time is written once, never moved or cleared).
   */
  writeOnceColumnsSql(table: string, columns: { fixed: readonly string[]; setOnce: readonly string[] }): string[];
  /** A statement-level trigger refusing TRUNCATE (PostgreSQL; SQLite has no TRUNCATE). */
  refuseTruncateSql(table: string): string[];
  /** Statements that drop those triggers again (tests use it to corrupt rows deliberately). */
  dropImmutableTriggersSql(table: string): string[];

  isUniqueViolation(error: unknown): boolean;
  isForeignKeyViolation(error: unknown): boolean;

  /** Publishes a wake-up to other nodes inside a transaction (delivered at commit). */
  notifyInTx(tx: Transaction<Database>, channel: string, payload: string): Promise<void>;
  /** Subscribes to wake-ups from other nodes; returns an unsubscribe. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;

  /** Queries issued (tests count them; the bench reports them). */
  readonly queryLog: QueryLog;
  destroy(): Promise<void>;
}

// each store's dialect by its Kysely adapter, which its transactions share (compiled-once.ts)
const dialectsByAdapter = new WeakMap<object, StoreDialect>();

/** Makes `d` findable from any executor of its store (storeDialectOf); the dialect files call it. */
export function registerStoreDialect(d: StoreDialect): StoreDialect {
  dialectsByAdapter.set(d.kysely.getExecutor().adapter, d);
  return d;
}

/** The dialect of the store `db` belongs to (its Kysely instance or one of its transactions). */
export function storeDialectOf(db: Executor): StoreDialect {
  const d = dialectsByAdapter.get(db.getExecutor().adapter);
  if (!d) throw new Error('storeDialectOf: this executor belongs to no registered store');
  return d;
}

/** Counts queries and which tables they touched, when enabled; with their bound values for tests that check what a statement asked for. */
export class QueryLog {
  enabled = false;
  entries: string[] = [];
  private bound: (readonly unknown[])[] = [];
  record(sql: string, parameters: readonly unknown[] = []): void {
    if (!this.enabled) return;
    this.entries.push(sql);
    this.bound.push(parameters);
  }
  start(): void {
    this.entries = [];
    this.bound = [];
    this.enabled = true;
  }
  stop(): string[] {
    return this.stopWithParameters().map((q) => q.sql);
  }
  stopWithParameters(): { sql: string; parameters: readonly unknown[] }[] {
    this.enabled = false;
    const out = this.entries.map((sql, i) => ({ sql, parameters: this.bound[i]! }));
    this.entries = [];
    this.bound = [];
    return out;
  }
}
