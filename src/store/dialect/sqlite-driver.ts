import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import type { QueryLog } from './dialect.js';
import type { WalCheckpointer } from './sqlite-checkpointer.js';

/*
 * The SQLite driver: one better-sqlite3 connection shared by the process, handed to one holder
 * at a time, with group commit (docs/operations.md "SQLite group commit").
 *
 * Why group commit: on SQLite, COMMIT is where a write's time goes. Each commit appends every page
 * the transaction dirtied to the WAL as a frame of its own (an agent message is 24 frames: the
 * message row, the inbox item, two events, the audit entry and all their indexes' last pages), and
 * was 60 % of the SQL time of the messages bench. Writers queued on the one connection dirty the
 * same last pages, so when a transaction commits while others already wait, it releases its
 * savepoint instead and hands the open transaction to the next; the last of the group (no one
 * waiting, or the group full) commits for all. Nobody is told "committed" before the real COMMIT:
 * each member's `commitTransaction` resolves with the group's, so an acknowledged write is
 * durable exactly as before, and a crash loses only writes nobody was told about.
 *
 * A member that fails rolls back to its savepoint and takes nothing else with it. A COMMIT that
 * fails (an I/O error, a full disk) fails every member of its group: all of them were waiting for
 * it. A plain read or a read snapshot outside a transaction goes to a second, query-only connection
 * (WAL: it reads what is committed), so it neither sees a group's writes nor ends the group; any
 * other statement outside a transaction (a write) first commits an open group. With nobody waiting
 * yet, a COMMIT waits one turn of the event loop for requests already received to join.
 */

/** At most this many transactions share one COMMIT, and a group stays open at most this long, so a member never waits long for its commit. */
const GROUP_MAX_MEMBERS = 32;
const GROUP_MAX_MS = 10;

/** A prepared statement and, for readers, how its rows become objects (see rowBuilderOf). */
interface Prepared {
  stmt: BetterSqlite3.Statement;
  rowOf: RowBuilder | null;
  /** it writes nothing (SQLite's own judgement of the statement) */
  readonly: boolean;
}

export type RowBuilder = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * PostgreSQL text cannot hold U+0000 and refuses it (SQLSTATE 22021); SQLite would store it.
 * Refusing it here the same way keeps both backends answering one input alike (a 400, see
 * http/errors.ts), instead of one storing what the other cannot.
 */
function refuseNul(params: readonly unknown[]): void {
  for (const p of params) {
    if (typeof p === 'string' && p.includes('\u0000')) throw Object.assign(new Error('invalid byte sequence: a text value contains U+0000'), { code: '22021' });
  }
}

/**
 * A statement's trailing `limit ?` bound to a whole number, written into its text instead.
 * SQLite answers an ORDER BY … LIMIT whose bound is a parameter 13–40 µs slower than the same
 * statement with the number written in — even on an empty table, and whatever the number
 * (bench/README.md) — and those statements are on every read path: a provenance read's juniors
 * and messages, a list page. A statement shape takes at most LITERAL_LIMIT_MAX + 1 texts (page
 * sizes are few in practice; an offset stays bound), and the statement cache keeps the ones in use.
 * The last `?` of a statement is its last parameter: Kysely and our templates number none.
 */
export function withLiteralLimit(text: string, params: unknown[]): { text: string; params: unknown[] } {
  if (text.endsWith(' limit ?')) {
    const limit = params[params.length - 1];
    if (isWholeNumber(limit) && limit <= LITERAL_LIMIT_MAX) return { text: `${text.slice(0, -1)}${limit}`, params: params.slice(0, -1) };
  }
  return { text, params };
}

/** Limits written in up to this (a REST page asks for at most 200, plus one to see a next page): beyond it, bound as before. */
const LITERAL_LIMIT_MAX = 1_024;

const isWholeNumber = (v: unknown): v is number | bigint => (typeof v === 'number' && Number.isSafeInteger(v)) || typeof v === 'bigint';

/** Statements kept per generation of a connection's cache (see prepare). */
const STATEMENTS_PER_GENERATION = 400;

/** What may go to the reader connection: a statement that starts as a query (and writes nothing, asked of SQLite). */
const PLAIN_READ = /^\s*(select|with)\b/i;

/** A connection: statements prepared once and kept. */
class SqliteConnection {
  // Kysely's stock driver re-prepares every query
  private statements = new Map<string, Prepared>();
  private previousStatements = new Map<string, Prepared>();
  constructor(
    readonly db: BetterSqlite3.Database,
    private readonly log: QueryLog,
    private readonly rowBuilderOf: (columns: readonly string[]) => RowBuilder,
  ) {}

  private prepare(text: string): Prepared {
    let prepared = this.statements.get(text);
    if (prepared) return prepared;
    // two generations: a statement used since the last turnover is kept through the next one, so
    // a burst of one-off texts (new limits) cannot evict every statement in use
    prepared = this.previousStatements.get(text);
    if (!prepared) {
      const stmt = this.db.prepare(text);
      const rowOf = stmt.reader ? this.rowBuilderOf(stmt.columns().map((c) => c.name)) : null;
      if (rowOf) stmt.raw(true);
      prepared = { stmt, rowOf, readonly: stmt.readonly };
    }
    if (this.statements.size >= STATEMENTS_PER_GENERATION) {
      this.previousStatements = this.statements;
      this.statements = new Map();
    }
    this.statements.set(text, prepared);
    return prepared;
  }

  /** Whether the statement writes nothing: a plain read the reader connection may answer. */
  readsOnly(query: CompiledQuery): boolean {
    return this.prepare(withLiteralLimit(query.sql, query.parameters as unknown[]).text).readonly;
  }

  execute<R>(query: CompiledQuery): QueryResult<R> {
    this.log.record(query.sql, query.parameters);
    refuseNul(query.parameters);
    const { text, params } = withLiteralLimit(query.sql, query.parameters as unknown[]);
    const { stmt, rowOf } = this.prepare(text);
    if (rowOf) return { rows: (stmt.all(...params) as unknown[][]).map(rowOf) as R[] };
    const { changes, lastInsertRowid } = stmt.run(...params);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  /** A transaction-control statement, logged like any other (tests read the order of begin, writes and commit). */
  control(text: string): void {
    this.execute(CompiledQuery.raw(text));
  }
}

/** Transactions sharing one open SQLite transaction, each waiting for the COMMIT that makes it durable. */
interface Group {
  openedAt: number;
  /** members that released their savepoint and wait for the group's COMMIT */
  waiting: { resolve: () => void; reject: (error: unknown) => void }[];
  /** every member so far, finished or not */
  size: number;
}

/** One holder's use of the connection, from acquire to release: what Kysely calls a connection. */
class Lease implements DatabaseConnection {
  /** false once released or handed on with an open group: it may no longer touch the connection */
  active = true;
  inTransaction = false;
  /** its transaction runs in a savepoint of a group that other members opened */
  inSavepoint = false;
  /** it holds a read snapshot (`begin` … `rollback`) open on the reader connection */
  inSnapshot = false;
  constructor(
    private readonly driver: SqliteDriver,
    readonly release: () => void,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.active) throw new Error('this connection lease was released');
    if (!this.inTransaction) {
      // a statement outside a transaction must not see a group's writes before they are committed:
      // a plain read, or a read snapshot, is answered by the reader connection (what is
      // committed), anything else commits the open group first
      const reader = this.driver.readerFor(query, this.inSnapshot);
      if (reader) {
        // members that handed on their transaction wait for a COMMIT this holder will not make
        this.driver.commitWaitingGroupSoon();
        const result = reader.execute<R>(query);
        if (query.sql === 'begin') this.inSnapshot = true;
        else if (query.sql === 'rollback' || query.sql === 'commit') this.inSnapshot = false;
        return result;
      }
      this.driver.commitOpenGroup(false);
    }
    return this.driver.connection.execute<R>(query);
  }

  // eslint-disable-next-line require-yield -- Kysely's driver interface asks for a generator; SQLite never streams
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used with SQLite');
  }
}

/**
 * One connection, one holder at a time in FIFO order; every transaction begins IMMEDIATE
 * (docs/operations.md), and transactions that find others waiting commit together (above).
 */
export class SqliteDriver implements Driver {
  connection!: SqliteConnection;
  /** the reader connection's statements (a file store only) */
  private readerConnection: SqliteConnection | null = null;
  private tail: Promise<void> = Promise.resolve();
  /** acquirers waiting for the connection */
  private queued = 0;
  private group: Group | null = null;
  /** a COMMIT of the open group waits for the event loop's next turn (scheduleGroupCommit) */
  private commitScheduled = false;
  /** the lease that holds the connection now, if any */
  private holder: Lease | null = null;
  constructor(
    private readonly db: BetterSqlite3.Database,
    /**
     * A second connection to the same file, opened query-only, for plain reads and read snapshots
     * (outside any transaction). In WAL mode it reads the last committed state whatever the writer
     * holds open, so a read no longer has to COMMIT an open group first: before it, a REST
     * request's token read ended every group, and writes under load committed one by one. Null
     * when the store is not in WAL mode (`:memory:`).
     */
    private readonly reader: BetterSqlite3.Database | null,
    /** runs the WAL's checkpoints on a thread of its own (a file store only) */
    private readonly checkpointer: WalCheckpointer | null,
    private readonly log: QueryLog,
    private readonly rowBuilderOf: (columns: readonly string[]) => RowBuilder,
  ) {}

  async init(): Promise<void> {
    this.connection = new SqliteConnection(this.db, this.log, this.rowBuilderOf);
    if (this.reader) this.readerConnection = new SqliteConnection(this.reader, this.log, this.rowBuilderOf);
  }

  /**
   * The reader connection, when it may answer this statement for a holder outside a transaction:
   * a SELECT (or WITH) that writes nothing, or a read snapshot (a `begin` outside any transaction,
   * and what follows it until it ends) — but not while the writer holds a transaction this holder
   * opened itself without the driver, whose reads belong to it.
   */
  readerFor(query: CompiledQuery, inSnapshot: boolean): SqliteConnection | null {
    const reader = this.readerConnection;
    if (!reader) return null;
    // a read snapshot's every statement, from its `begin` to its end (the reader refuses writes: query_only)
    if (inSnapshot) return reader;
    // the writer in a transaction that is no group's: this holder's own, which its reads belong to
    if (this.db.inTransaction && !this.group) return null;
    if (query.sql === 'begin') return reader;
    return PLAIN_READ.test(query.sql) && reader.readsOnly(query) ? reader : null;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    this.queued++;
    await previous;
    this.queued--;
    const lease: Lease = new Lease(this, () => {
      if (this.holder === lease) this.holder = null;
      release();
    });
    this.holder = lease;
    return lease;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (this.group && !this.db.inTransaction) this.failGroup(new Error('SQLite rolled back the open transaction of a commit group'));
    if (this.group) {
      this.connection.control('savepoint group_member');
      lease.inSavepoint = true;
    } else {
      // A deferred BEGIN that reads then writes fails with SQLITE_BUSY_SNAPSHOT when another
      // process wrote in between, which no busy timeout retries.
      this.connection.control('begin immediate');
      this.group = { openedAt: performance.now(), waiting: [], size: 0 };
    }
    lease.inTransaction = true;
    this.group.size++;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    const group = this.group;
    if (!group || !this.db.inTransaction) {
      if (group) this.failGroup(new Error('SQLite rolled back the open transaction of a commit group'));
      throw new Error('cannot commit: SQLite rolled back this transaction');
    }
    if (lease.inSavepoint) this.connection.control('release group_member');
    lease.inTransaction = false;
    lease.inSavepoint = false;
    const open = group.size < GROUP_MAX_MEMBERS && performance.now() - group.openedAt < GROUP_MAX_MS;
    // Nobody waiting yet: with a reader connection (plain reads no longer end a group), requests the
    // process has already received get one turn of the event loop to join before the COMMIT. Their
    // handlers run between I/O callbacks, never while this transaction's statements do, so without
    // the turn a REST write under load found no one queued and committed alone every time.
    if (open && this.queued === 0 && this.reader) this.scheduleGroupCommit();
    else if (!open || this.queued === 0) {
      this.commitOpenGroup(true);
      return;
    }
    // hand the open transaction on to the next holder and wait for the group's COMMIT
    const committed = new Promise<void>((resolve, reject) => group.waiting.push({ resolve, reject }));
    lease.active = false;
    lease.release();
    await committed;
  }

  /** A COMMIT soon (scheduleGroupCommit) for an open group whose members already wait for it. */
  commitWaitingGroupSoon(): void {
    if (this.group && this.group.waiting.length > 0) this.scheduleGroupCommit();
  }

  /**
   * A COMMIT of the open group after the event loop's next turn. A holder inside a group
   * member's transaction is waited for (it joins the group, and its own commit then finds this
   * one queued); any other holder — a plain read, a read snapshot such as `verify --records` —
   * is not, since it does not touch the writer's transaction: the finished members must not wait
   * out a long read, nor other processes the write lock.
   */
  private scheduleGroupCommit(): void {
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    setImmediate(() => {
      if (!this.holder?.inTransaction) {
        this.commitScheduled = false;
        this.commitOpenGroup(false);
        return;
      }
      this.acquireConnection()
        .then((connection) => {
          this.commitScheduled = false;
          const lease = connection as Lease;
          lease.active = false;
          try {
            this.commitOpenGroup(false);
          } finally {
            lease.release();
          }
        })
        .catch((error: unknown) => this.failGroup(error instanceof Error ? error : new Error(String(error))));
    });
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // a lease handed on has released its savepoint: its outcome is its group's COMMIT
    if (!lease.active || !lease.inTransaction) return;
    lease.inTransaction = false;
    if (lease.inSavepoint) {
      lease.inSavepoint = false;
      if (this.db.inTransaction) {
        this.connection.control('rollback to group_member');
        this.connection.control('release group_member');
        return;
      }
      this.failGroup(new Error('SQLite rolled back the open transaction of a commit group'));
      return;
    }
    // the group's first member: nobody else has joined before it finished
    this.group = null;
    if (this.db.inTransaction) this.connection.control('rollback');
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // a snapshot its holder left open (readSnapshot always ends its own) must not outlive the
    // lease: every later plain read would see its frozen state
    if (lease.inSnapshot) {
      lease.inSnapshot = false;
      if (this.reader?.inTransaction) {
        try {
          this.readerConnection!.control('rollback');
        } catch {
          // SQLite ends a read transaction it cannot roll back
        }
      }
    }
    if (!lease.active) return;
    lease.active = false;
    try {
      // members handed on their transaction expecting someone to commit it: with no one left to,
      // it is this holder (unless a COMMIT is already scheduled)
      if (this.queued === 0 && !this.commitScheduled) this.commitOpenGroup(false);
    } finally {
      lease.release();
    }
  }

  /**
   * COMMITs an open group and settles its waiting members. `rethrow`: the caller is a member
   * itself and fails with them; otherwise (a reader, a release) the failure goes only to them.
   */
  commitOpenGroup(rethrow: boolean): void {
    const group = this.group;
    if (!group) return;
    this.group = null;
    try {
      if (!this.db.inTransaction) throw new Error('SQLite rolled back the open transaction of a commit group');
      this.connection.control('commit');
    } catch (error) {
      for (const member of group.waiting) member.reject(error);
      try {
        if (this.db.inTransaction) this.connection.control('rollback');
      } catch {
        // the members already failed with the COMMIT's error; SQLite ends a transaction it cannot roll back
      }
      if (rethrow) throw error;
      return;
    }
    for (const member of group.waiting) member.resolve();
    // after the members settled: the COMMIT is durable whatever starting a thread does
    this.checkpointer?.committed();
  }

  /** SQLite ended the transaction itself (it does on some I/O errors): its waiting members lost their writes. */
  private failGroup(error: Error): void {
    const group = this.group;
    this.group = null;
    for (const member of group?.waiting ?? []) member.reject(error);
  }

  async destroy(): Promise<void> {
    // before the writer closes: the last connection to close checkpoints and removes the WAL; and
    // before the last COMMIT, so that nothing joins a group between it and the close
    await this.checkpointer?.stop();
    // a holder part-way through its transaction loses what it wrote so far (nothing is half
    // written); the members that finished before it still commit
    if (this.holder) await this.rollbackTransaction(this.holder);
    this.commitOpenGroup(false);
    this.reader?.close();
    this.db.close();
  }
}
