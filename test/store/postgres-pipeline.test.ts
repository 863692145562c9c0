import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RESULT_UNUSED, type StoreDialect } from '../../src/store/dialect/dialect.js';
import { isKnownRollback } from '../../src/store/store-errors.js';
import { openPostgres } from '../../src/store/dialect/postgres.js';
import { describePostgres } from '../helpers/postgres-only.js';

/**
 * postgres-pipeline.ts: inside a transaction, BEGIN and statements marked RESULT_UNUSED go out
 * with the next statement in one socket write; what callers see does not change.
 */
describePostgres('statements nobody waits for (PostgreSQL pipeline)', (t) => {
  // a store of its own on the harness's database: no live hub or app writing beside the test
  let store: StoreDialect;
  beforeAll(async () => {
    store = openPostgres({ connectionString: t().database.databaseUrl!, maxConnections: 2 });
    await sql`create table pipeline_probe (n integer not null)`.execute(store.kysely);
  });
  afterAll(async () => {
    await store.destroy();
  });
  const probeRows = async () => (await sql<{ n: number }>`select n from pipeline_probe order by n`.execute(store.kysely)).rows.map((r) => r.n);
  const unused = (text: string) => sql.raw(RESULT_UNUSED + text);

  it('BEGIN and a marked statement go out with the next statement in one socket write; COMMIT is the second', async () => {
    const writes: number[] = [];
    const proto = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...a: unknown[]) => unknown>;
    const [write, writev] = [proto._write, proto._writev];
    // the writes to PostgreSQL's port only (nothing else of this process's traffic)
    const port = Number(new URL(t().database.databaseUrl!).port || 5432);
    const toServer = (socket: unknown) => (socket as net.Socket).remotePort === port;
    proto._write = function (this: unknown, ...a: unknown[]) {
      if (toServer(this)) writes.push(1);
      return write.apply(this, a);
    };
    proto._writev = function (this: unknown, ...a: unknown[]) {
      if (toServer(this)) writes.push((a[0] as unknown[]).length);
      return writev.apply(this, a);
    };
    try {
      const seen = await store.kysely.transaction().execute(async (tx) => {
        await unused('insert into pipeline_probe values (1)').execute(tx);
        // the held insert ran first: the next statement sees it
        return (await sql<{ n: number }>`select count(*)::int as n from pipeline_probe where n = 1`.execute(tx)).rows[0]!.n;
      });
      expect(seen).toBe(1);
    } finally {
      proto._write = write;
      proto._writev = writev;
    }
    // begin + the insert + the select in one write of three chunks, then the commit alone
    expect(writes).toEqual([3, 1]);
    expect(await probeRows()).toEqual([1]);
  });

  it('a marked statement that fails fails the statement sent with it, with its own error; a COMMIT after it rolls back and throws it as a known rollback', async () => {
    await sql`delete from pipeline_probe`.execute(store.kysely);
    const failure = (write: () => Promise<unknown>) =>
      write().then(
        () => new Error('no failure'),
        (error: unknown) => error,
      );
    const beforeCommit = await failure(() =>
      store.kysely.transaction().execute(async (tx) => {
        await sql`insert into pipeline_probe values (2)`.execute(tx);
        await unused('insert into pipeline_probe values (1 / 0)').execute(tx);
        await sql`select 1`.execute(tx);
      }),
    );
    expect(beforeCommit).toMatchObject({ code: '22012' });
    // it surfaced before any COMMIT was sent: a failure like any other
    expect(isKnownRollback(beforeCommit)).toBe(false);
    const atCommit = await failure(() =>
      store.kysely.transaction().execute(async (tx) => {
        await sql`insert into pipeline_probe values (3)`.execute(tx);
        await unused('insert into pipeline_probe values (1 / 0)').execute(tx);
      }),
    );
    expect(atCommit).toMatchObject({ code: '22012' });
    // the server answered the COMMIT: it rolled back, and the caller can know it
    expect(isKnownRollback(atCommit)).toBe(true);
    // nothing of either transaction was written, and the connections still work
    expect(await probeRows()).toEqual([]);
  });

  it('a ROLLBACK swallows a failed marked statement: the caller sees the error that made it roll back', async () => {
    await expect(
      store.kysely.transaction().execute(async (tx) => {
        await unused('insert into pipeline_probe values (1 / 0)').execute(tx);
        throw new Error('the use case refused');
      }),
    ).rejects.toThrow('the use case refused');
    expect(await probeRows()).toEqual([]);
  });

  it('outside a transaction a marked statement is sent and answered as any other', async () => {
    expect((await sql<{ n: number }>`${unused('select 42 as n')}`.execute(store.kysely)).rows).toEqual([{ n: 42 }]);
    await expect(unused('select 1 / 0').execute(store.kysely)).rejects.toMatchObject({ code: '22012' });
  });
});
