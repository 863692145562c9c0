import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { withLiteralLimit } from '../../src/store/dialect/sqlite-driver.js';

/**
 * The SQLite driver writes a statement's trailing `limit ?` into its text (sqlite-driver.ts
 * withLiteralLimit; an offset stays bound, and so does a limit past its bound): the rows must be
 * exactly those the bound values select, on both dialects, whatever the numbers and whatever else
 * the statement binds.
 */
describeEachDialect('LIMIT and OFFSET bound by a statement', (t) => {
  it('select the same rows as the numbers say, with the other parameters kept in place', async () => {
    const h = t();
    const db = h.store.kysely;
    const values = h.store.valueTable([5, 1, 4, 2, 3, 6], 'bigint', 'v');
    const page = async (limit: number | bigint, offset?: number) =>
      (
        await (
          offset === undefined
            ? sql<{ v: number }>`select v from ${values} as t where v > ${1} order by v limit ${limit}`
            : sql<{ v: number }>`select v from ${values} as t where v > ${1} order by v limit ${limit} offset ${offset}`
        ).execute(db)
      ).rows.map((r) => Number(r.v));
    expect(await page(2)).toEqual([2, 3]);
    expect(await page(3)).toEqual([2, 3, 4]);
    expect(await page(0)).toEqual([]);
    expect(await page(2n)).toEqual([2, 3]);
    expect(await page(2 ** 31 - 1)).toEqual([2, 3, 4, 5, 6]);
    expect(await page(2, 1)).toEqual([3, 4]);
    expect(await page(2, 4)).toEqual([6]);
    expect(await page(10, 0)).toEqual([2, 3, 4, 5, 6]);
    // the query builder's limit and offset, one statement after another with new numbers
    for (let i = 0; i < 4; i++) await h.create(h.fleetKey, { title: `s${i}` });
    const built = async (limit: number, offset: number) =>
      (await db.selectFrom('sessions').select('id').orderBy('id').limit(limit).offset(offset).execute()).map((r) => Number(r.id));
    const sessions = (await db.selectFrom('sessions').select('id').orderBy('id').execute()).map((r) => Number(r.id));
    expect(sessions).toHaveLength(4);
    expect(await built(1, 0)).toEqual(sessions.slice(0, 1));
    expect(await built(2, 1)).toEqual(sessions.slice(1, 3));
    expect(await built(5, 3)).toEqual(sessions.slice(3));
  });

  it('keeps a limit that is not a whole number bound, where the engine judges it', async () => {
    const h = t();
    const db = h.store.kysely;
    const values = h.store.valueTable([1, 2, 3], 'bigint', 'v');
    // a text that reads as a number: bound as it came (SQLite and PostgreSQL both take '2')
    const rows = (await sql<{ v: number }>`select v from ${values} as t order by v limit ${'2'}`.execute(db)).rows;
    expect(rows.map((r) => Number(r.v))).toEqual([1, 2]);
  });
});

// The rows above would be the same if nothing were written in: what the SQLite driver prepares is checked here.
describe('withLiteralLimit: the text the SQLite driver prepares', () => {
  it('writes a trailing whole-number limit into the text and drops its parameter; keeps the others and their order', () => {
    expect(withLiteralLimit('select v from t where a = ? and b = ? order by v limit ?', ['x', 7, 50])).toEqual({
      text: 'select v from t where a = ? and b = ? order by v limit 50',
      params: ['x', 7],
    });
    expect(withLiteralLimit('select v from t limit ?', [0n])).toEqual({ text: 'select v from t limit 0', params: [] });
    expect(withLiteralLimit('select v from t limit ?', [1024])).toEqual({ text: 'select v from t limit 1024', params: [] });
  });
  it('leaves bound what it must: an offset, a limit past 1,024, a fraction, a text, a limit that is not last', () => {
    for (const [text, params] of [
      ['select v from t limit ? offset ?', [2, 4]],
      ['select v from t limit ?', [1025]],
      ['select v from t limit ?', [2.5]],
      ['select v from t limit ?', ['2']],
      ['select v from (select v from t limit ?) where v > ?', [3, 1]],
    ] as [string, unknown[]][])
      expect(withLiteralLimit(text, params), text).toEqual({ text, params });
  });
});
