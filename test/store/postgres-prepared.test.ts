import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness.js';
import { pgAvailable } from '../helpers/databases.js';

/*
 * PostgreSQL runs statements with parameters as named prepared statements (src/store/dialect/
 * postgres.ts): reads and writes alike, each kind with its own budget per connection, so that
 * one-off write texts never take the places the lineage reads need.
 */
describe.skipIf(!pgAvailable())('PostgreSQL prepared statements', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness('postgres');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('prepares writes as well as reads, and writes past their budget leave the reads theirs', async () => {
    const made = (await h.create(h.fleetKey, { title: 'prepared' })).session;
    // one transaction: one connection, whose prepared statements pg_prepared_statements lists
    const prepared = await h.store.kysely.transaction().execute(async (tx) => {
      const list = async () =>
        (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(tx)).rows.filter((r) =>
          r.name.startsWith('warrant_'),
        );
      await sql`update sessions set title = title where id = ${made.id}`.execute(tx);
      // a `with` that changes rows is a write too (the live-event and audit statement's shape)
      await sql`with c as (update sessions set title = title where id = ${made.id} returning id) select id from c`.execute(tx);
      const afterOne = await list();
      // 300 distinct write texts: more than the writes' budget, and more than the reads' too
      for (let i = 0; i < 300; i++) await sql`update sessions set title = title where id = ${made.id} and ${sql.lit(i)} >= 0`.execute(tx);
      const afterMany = await list();
      // a read text never seen before still gets its place
      await sql`select id from sessions where id = ${made.id} and 7 > 6`.execute(tx);
      return { afterOne, afterMany, afterRead: await list() };
    });
    const writes = (rows: { name: string; statement: string }[]) => rows.filter((r) => r.name.startsWith('warrant_w'));
    expect(writes(prepared.afterOne).map((r) => r.statement)).toContain(`update sessions set title = title where id = $1`);
    expect(writes(prepared.afterOne).map((r) => r.statement)).toContain(
      `with c as (update sessions set title = title where id = $1 returning id) select id from c`,
    );
    // the writes' budget is spent and no more (128), whatever else the connection prepared before
    expect(writes(prepared.afterMany)).toHaveLength(128);
    expect(prepared.afterRead.map((r) => r.statement)).toContain('select id from sessions where id = $1 and 7 > 6');
  });
});
