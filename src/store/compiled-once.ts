import { CompiledQuery, sql, type Compilable, type RawBuilder } from 'kysely';
import { RESULT_UNUSED, storeDialectOf, type Executor, type StoreDialect } from './dialect/dialect.js';

/** What a compiled-once query binds per run: plain values only (a list travels as one value, see valueList). */
type Bound = string | number | bigint | boolean | null | readonly (string | number)[];

/**
 * Stands in for a run's value while the query is built and compiled once. It refuses to be
 * serialised, so a builder that encodes its value at build time (valueList's JSON on SQLite)
 * fails loudly instead of binding the stand-in's text; encodeBound is the way through.
 */
class Slot {
  constructor(
    readonly name: string,
    readonly encode: ((value: Bound) => unknown) | null = null,
  ) {}
  toJSON(): never {
    throw new Error(`compiledOnce: the value "${this.name}" was serialised while the query was built; bind it with encodeBound`);
  }
  // a stand-in turned into text or a number at build time (a template literal, arithmetic) would
  // freeze into the statement: refused as loudly. (A `??` or `? :` on one cannot be caught: keep those in the caller.)
  [Symbol.toPrimitive](): never {
    throw new Error(`compiledOnce: the value "${this.name}" was used as text or a number while the query was built; compute it before binding`);
  }
}

/**
 * A value as a statement binds it, encoded by `encode` — for a builder that turns a value into
 * its bound form (valueList's JSON text on SQLite). Inside a compiled-once build it defers the
 * encoding to each run.
 */
export function encodeBound<V>(value: V, encode: (value: V) => unknown): unknown {
  if (value instanceof Slot) return new Slot(value.name, encode as (value: Bound) => unknown);
  return encode(value);
}

interface Template {
  sql: string;
  parameters: readonly (Slot | { fixed: unknown })[];
}

/** What a compiled-once build returns: a query builder or an `sql` template (which compiles against an executor). */
type Buildable<R> = Compilable<R> | RawBuilder<R>;

/**
 * Stand-ins for one set of values: each property read is a slot of that name. `keys` are the
 * properties it lists as its own (a batch row's, so a build may hand the row to `values` whole).
 */
function standIns<P>(prefix = '', keys: readonly string[] = []): P {
  return new Proxy(
    {},
    {
      get: (_, name) => new Slot(prefix + String(name)),
      ownKeys: () => [...keys],
      getOwnPropertyDescriptor: (_, name) =>
        typeof name === 'string' && keys.includes(name) ? { enumerable: true, configurable: true, value: new Slot(prefix + name) } : undefined,
    },
  ) as P;
}

function templateOf<R>(db: Executor, built: Buildable<R>): Template {
  // a builder's compile takes no argument; a raw template's takes the executor to compile for
  const compiled = (built as { compile(db: Executor): CompiledQuery<R> }).compile(db);
  return { sql: compiled.sql, parameters: compiled.parameters.map((v) => (v instanceof Slot ? v : { fixed: v })) };
}

async function runTemplate<R>(db: Executor, template: Template, valueOf: (name: string) => Bound | undefined): Promise<R[]> {
  const bound = template.parameters.map((p) => {
    if (!(p instanceof Slot)) return p.fixed;
    const value = valueOf(p.name);
    if (value === undefined) throw new Error(`compiledOnce: no value for "${p.name}"`);
    return p.encode ? p.encode(value) : value;
  });
  const result = await db.executeQuery<R>(CompiledQuery.raw(template.sql, bound));
  return result.rows;
}

/**
 * A query built and compiled once per store, each run binding new values in the same places.
 * Kysely builds (freezing every node) and compiles a query on every call: about a fifth of a
 * REST GET's busy CPU went there (bench/README.md). `build` gets stand-ins for `P`'s values
 * and must place them as values only: never branch on them, never spread a list (`in` with an
 * array; use the dialect's valueList, whose one parameter is the whole list), never encode
 * them (JSON.stringify a value before it is bound). It gets the store's dialect too, for its
 * SQL fragments. `resultUnused`: no caller reads its rows, and its failure may surface at the
 * transaction's next statement (RESULT_UNUSED); its rows are then empty.
 */
export function compiledOnce<P extends Record<string, Bound>, R>(
  build: (db: Executor, p: P, d: StoreDialect) => Buildable<R>,
  options: { resultUnused?: boolean } = {},
): (db: Executor, params: P) => Promise<R[]> {
  // one store's queries compile alike: its Kysely instance and its transactions share one adapter
  const templates = new WeakMap<object, Template>();
  return async (db, params) => {
    const key = db.getExecutor().adapter;
    let template = templates.get(key);
    if (!template) {
      template = templateOf(db, build(db, standIns<P>(), storeDialectOf(db)));
      if (options.resultUnused) template = { ...template, sql: RESULT_UNUSED + template.sql };
      templates.set(key, template);
    }
    return runTemplate<R>(db, template, (name) => params[name]);
  };
}

/** Rows (in all its batches) up to which a batched statement keeps a template per shape; a larger write is built as it comes. */
const ROWS_COMPILED = 32;

// a row's value may be undefined only in its type (an insert's optional column): a key present
// with no value is refused at run time, a key absent is a column left to its default
type Batches = Record<string, readonly Record<string, Bound | undefined>[]>;

/**
 * A statement over batches of rows (a multi-row insert, two of them in one statement), compiled
 * once per store and shape — how many rows each batch holds, and each row's keys. `build` gets
 * that many rows of stand-ins in each batch (with the rows' keys, so a row may go to `values`
 * whole), and stand-ins for the `shared` values, and places them as compiledOnce's build does;
 * it may use a row's index and a batch's length, nothing else of the rows. A write of more
 * than ROWS_COMPILED rows is built and compiled as it comes (rare: a write's events and audit
 * entries come one to a few at a time). Batch and shared names hold no dot.
 */
export function compiledForBatches<B extends Batches, S extends Record<string, Bound>, R>(
  build: (db: Executor, batches: B, shared: S, d: StoreDialect) => Buildable<R>,
): (db: Executor, batches: B, shared: S) => Promise<R[]> {
  const templates = new WeakMap<object, Map<string, Template>>();
  return async (db, batches, shared) => {
    const names = Object.keys(batches);
    let rows = 0;
    for (const name of names) rows += batches[name]!.length;
    if (rows > ROWS_COMPILED) {
      const compiled = (build(db, batches, shared, storeDialectOf(db)) as { compile(db: Executor): CompiledQuery<R> }).compile(db);
      return (await db.executeQuery<R>(compiled)).rows;
    }
    const key = db.getExecutor().adapter;
    let byShape = templates.get(key);
    if (!byShape) templates.set(key, (byShape = new Map<string, Template>()));
    // how many rows each batch holds, and each row's own keys (a build may insert a row whole)
    const shape = names.map((name) => `${name}:${batches[name]!.map((row) => Object.keys(row).join(' ')).join('|')}`).join(',');
    let template = byShape.get(shape);
    if (!template) {
      const stand = Object.fromEntries(
        names.map((name) => [name, batches[name]!.map((row, i) => standIns(`${name}.${i}.`, Object.keys(row)))]),
      ) as unknown as B;
      byShape.set(shape, (template = templateOf(db, build(db, stand, standIns<S>(), storeDialectOf(db)))));
    }
    return runTemplate<R>(db, template, (name) => {
      const first = name.indexOf('.');
      if (first < 0) return shared[name];
      const second = name.indexOf('.', first + 1);
      return batches[name.slice(0, first)]?.[Number(name.slice(first + 1, second))]?.[name.slice(second + 1)];
    });
  };
}

/** compiledForBatches for one batch of rows and nothing shared: a multi-row insert. */
export function compiledForRows<P extends Record<string, Bound | undefined>, R>(
  build: (db: Executor, rows: readonly P[], d: StoreDialect) => Buildable<R>,
): (db: Executor, rows: readonly P[]) => Promise<R[]> {
  const statement = compiledForBatches((db, batches: { rows: readonly P[] }, _shared: Record<string, never>, d) => build(db, batches.rows, d));
  return (db, rows) => statement(db, { rows }, {});
}

/**
 * `column in ids` as one bound list (the dialect's valueList): the filter a compiled-once read
 * of "these sessions" uses, so one statement text serves any number of ids.
 */
export function inIdList(d: StoreDialect, column: string, ids: readonly number[]): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} in ${d.valueList(ids, 'bigint')}`;
}
