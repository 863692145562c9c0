import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';

/**
 * Rows come back as plain objects keyed by column name, whatever the names: the SQLite driver
 * builds them with one literal per statement (sqlite.ts rowBuilderOf), which must keep the keys
 * the assignment loop gave — a later duplicate wins, a name needing quotes is a key like any
 * other, and a column called `__proto__` is an own property, never the prototype.
 */
describeEachDialect('row objects', (t) => {
  it('keys every column by its name, quoted or odd, with the last of duplicate names winning', async () => {
    const h = t();
    const db = h.store.kysely;
    const odd = (await sql<Record<string, unknown>>`select 1 as "a b", 'x' as "quote""d", null as "nothing", 2 as "constructor", 'v' as "\\"`.execute(db)).rows;
    expect(odd).toEqual([{ 'a b': 1, 'quote"d': 'x', nothing: null, constructor: 2, '\\': 'v' }]);
    const dup = (await sql<Record<string, unknown>>`select 1 as a, 2 as a`.execute(db)).rows;
    expect(dup).toEqual([{ a: 2 }]);

    const proto = (await sql<Record<string, unknown>>`select 'p' as "__proto__", 3 as b`.execute(db)).rows[0]!;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__', 'b']);
    expect(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value).toBe('p');

    // many rows of one statement share its builder: each row its own object with its own values
    const many = (
      await sql<{
        n: number;
        s: string;
      }>`select value as n, 'row ' || value as s from ${h.store.valueTable([1, 2, 3], 'bigint', 'value')} as v order by n`.execute(db)
    ).rows;
    expect(many.map((r) => [Number(r.n), r.s])).toEqual([
      [1, 'row 1'],
      [2, 'row 2'],
      [3, 'row 3'],
    ]);
  });
});

/** Where code generation is disallowed, the SQLite store still answers with the same rows (built key by key). */
describe('SQLite rows without code generation from strings', () => {
  it('a Node run with --disallow-code-generation-from-strings reads the same objects', () => {
    const store = pathToFileURL(resolve(import.meta.dirname, '../../dist/store/dialect/sqlite.js')).href;
    const script = `
      import { sql } from 'kysely';
      import { openSqlite } from ${JSON.stringify(store)};
      // the flag is in force: a string compiled to code throws here
      let refused = false;
      try { new Function('return 1'); } catch { refused = true; }
      const s = openSqlite({ filename: ':memory:' });
      const rows = (await sql\`select 1 as a, 'x' as "b c", 2 as a\`.execute(s.kysely)).rows;
      await s.destroy();
      console.log(JSON.stringify({ refused, rows, keys: Object.keys(rows[0]), proto: Object.getPrototypeOf(rows[0]) === Object.prototype }));
    `;
    const out = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], {
      cwd: resolve(import.meta.dirname, '../..'),
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ refused: true, rows: [{ a: 2, 'b c': 'x' }], keys: ['a', 'b c'], proto: true });
  });
});
