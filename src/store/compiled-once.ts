import { CompiledQuery, sql, type Compilable, type RawBuilder } from 'kysely';
import { storeDialectOf, type Executor, type StoreDialect } from './dialect/dialect.js';

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
 * A query built and compiled once per store, each run binding new values in the same places.
 * Kysely builds (freezing every node) and compiles a query on every call: about a fifth of a
 * REST GET's busy CPU went there (bench/README.md). `build` gets stand-ins for `P`'s values
 * and must place them as values only: never branch on them, never spread a list (`in` with an
 * array; use the dialect's valueList, whose one parameter is the whole list). It gets the
 * store's dialect too, for its SQL fragments.
 */
export function compiledOnce<P extends Record<string, Bound>, R>(
  build: (db: Executor, p: P, d: StoreDialect) => Buildable<R>,
): (db: Executor, params: P) => Promise<R[]> {
  // one store's queries compile alike: its Kysely instance and its transactions share one adapter
  const templates = new WeakMap<object, Template>();
  const templateOf = (db: Executor): Template => {
    const key = db.getExecutor().adapter;
    let template = templates.get(key);
    if (!template) {
      const stand = new Proxy({} as P, { get: (_, name) => new Slot(String(name)) });
      const built = build(db, stand, storeDialectOf(db));
      // a builder's compile takes no argument; a raw template's takes the executor to compile for
      const compiled = (built as { compile(db: Executor): CompiledQuery<R> }).compile(db);
      const parameters = compiled.parameters.map((v) => (v instanceof Slot ? v : { fixed: v }));
      template = { sql: compiled.sql, parameters };
      templates.set(key, template);
    }
    return template;
  };
  return async (db, params) => {
    const template = templateOf(db);
    const bound = template.parameters.map((p) => {
      if (!(p instanceof Slot)) return p.fixed;
      const value = params[p.name];
      if (value === undefined) throw new Error(`compiledOnce: no value for "${p.name}"`);
      return p.encode ? p.encode(value) : value;
    });
    const result = await db.executeQuery<R>(CompiledQuery.raw(template.sql, bound));
    return result.rows;
  };
}

/**
 * `column in ids` as one bound list (the dialect's valueList): the filter a compiled-once read
 * of "these sessions" uses, so one statement text serves any number of ids.
 */
export function inIdList(d: StoreDialect, column: string, ids: readonly number[]): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} in ${d.valueList(ids, 'bigint')}`;
}
