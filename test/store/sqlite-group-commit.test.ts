import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreDialect } from '../../src/store/dialect/dialect.js';
import { openSqlite } from '../../src/store/dialect/sqlite.js';

/*
 * SQLite group commit (src/store/dialect/sqlite-driver.ts): transactions that find others waiting
 * for the one connection share a COMMIT, each in a savepoint. What must hold: a transaction is
 * acknowledged only once its COMMIT is done (another connection sees it at that moment), a failed
 * member takes nothing else with it, a failed COMMIT fails every member, and a plain read never sees
 * writes that are not committed yet (it reads on a second, query-only connection, so it does not
 * end the group either). PostgreSQL has no such driver: its pool commits each
 * transaction on its own connection.
 */
describe('SQLite group commit', () => {
  let dir: string;
  let file: string;
  let store: StoreDialect;
  /** a second connection to the same file, as another process would have */
  let other: BetterSqlite3.Database;
  const countOther = (): number => (other.prepare('select count(*) as n from gc_items').get() as { n: number }).n;
  const namesOther = (): string[] => (other.prepare('select name from gc_items order by id').all() as { name: string }[]).map((r) => r.name);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'warrant-group-commit-'));
    file = join(dir, 'store.db');
    store = openSqlite({ filename: file });
    await sql`create table gc_parents (id integer primary key)`.execute(store.kysely);
    await sql`create table gc_items (id integer primary key autoincrement, name text not null, parent_id integer references gc_parents (id) deferrable initially deferred)`.execute(
      store.kysely,
    );
    other = new BetterSqlite3(file, { readonly: true });
  });
  afterEach(async () => {
    other.close();
    await store.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const insertItem = (name: string, parentId: number | null = null) =>
    store.kysely.transaction().execute(async (tx) => {
      await sql`insert into gc_items (name, parent_id) values (${name}, ${parentId})`.execute(tx);
    });

  it('transactions queued together share a COMMIT, and each is acknowledged only once it is committed', async () => {
    store.queryLog.start();
    const seenAtAck: { name: string; visible: string[] }[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        insertItem(`item ${i}`).then(() => {
          // at the acknowledgement another connection sees the write: it is committed, not only released
          seenAtAck.push({ name: `item ${i}`, visible: namesOther() });
        }),
      ),
    );
    const log = store.queryLog.stop();
    expect(countOther()).toBe(8);
    for (const { name, visible } of seenAtAck) expect(visible).toContain(name);
    const commits = log.filter((q) => q === 'commit').length;
    expect(commits).toBeGreaterThanOrEqual(1);
    expect(commits).toBeLessThan(8);
    expect(log.filter((q) => q === 'savepoint group_member').length).toBe(8 - commits);
  });

  it('a transaction alone commits as before: begin immediate, its writes, commit, no savepoint', async () => {
    store.queryLog.start();
    await insertItem('alone');
    const log = store.queryLog.stop();
    expect(log[0]).toBe('begin immediate');
    expect(log[log.length - 1]).toBe('commit');
    expect(log.some((q) => q.startsWith('savepoint'))).toBe(false);
    expect(namesOther()).toEqual(['alone']);
  });

  it('a member that fails rolls back alone; the members before and after it commit', async () => {
    const outcomes = await Promise.allSettled([
      insertItem('first'),
      store.kysely.transaction().execute(async (tx) => {
        await sql`insert into gc_items (name) values ('doomed')`.execute(tx);
        throw new Error('the use case refused after writing');
      }),
      insertItem('last'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(namesOther()).toEqual(['first', 'last']);
  });

  it('the first member failing, with others queued, leaves the others to commit', async () => {
    const outcomes = await Promise.allSettled([
      store.kysely.transaction().execute(async (tx) => {
        await sql`insert into gc_items (name) values ('doomed')`.execute(tx);
        throw new Error('refused');
      }),
      insertItem('second'),
      insertItem('third'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(namesOther()).toEqual(['second', 'third']);
  });

  it('a COMMIT that fails fails every member of its group, keeps none of their writes, and the store goes on', async () => {
    // a deferred foreign key is checked at COMMIT only: the second member's row fails the group's
    const outcomes = await Promise.allSettled([insertItem('innocent'), insertItem('orphan', 999), insertItem('bystander')]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const o of outcomes) expect(String((o as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/i);
    expect(countOther()).toBe(0);
    await insertItem('after');
    expect(namesOther()).toEqual(['after']);
  });

  it('a plain read arriving while a group is open reads what is committed, on a connection of its own, and leaves the group open', async () => {
    let visibleToOtherAtRead: string[] = [];
    store.queryLog.start();
    const [, , read] = await Promise.all([
      insertItem('a'),
      insertItem('b'),
      // queued behind the two writers, outside any transaction
      sql<{ name: string }>`select name from gc_items order by id`.execute(store.kysely).then((r) => {
        visibleToOtherAtRead = namesOther();
        return r.rows.map((row) => row.name);
      }),
      insertItem('c'),
    ]);
    const log = store.queryLog.stop();
    // a and b were not committed when it ran (c was still to join their group): it saw neither
    expect(read).toEqual([]);
    // what another connection saw then: the read is the committed state, not a stale one
    expect(visibleToOtherAtRead).toEqual([]);
    // and it did not end their group: the three share one COMMIT
    expect(log.filter((q) => q === 'commit')).toHaveLength(1);
    expect(namesOther()).toEqual(['a', 'b', 'c']);
  });

  it('a read after a write is acknowledged sees it; a write outside a transaction still commits the open group first', async () => {
    await insertItem('first');
    expect((await sql<{ name: string }>`select name from gc_items`.execute(store.kysely)).rows.map((r) => r.name)).toEqual(['first']);
    let visibleAtWrite: string[] = [];
    await Promise.all([
      insertItem('grouped'),
      // not a transaction, and not a read: it runs on the writer after the group's COMMIT
      sql`insert into gc_items (name) values ('plain')`.execute(store.kysely).then(() => (visibleAtWrite = namesOther())),
      insertItem('later'),
    ]);
    expect(visibleAtWrite).toEqual(['first', 'grouped', 'plain']);
    expect(namesOther()).toEqual(['first', 'grouped', 'plain', 'later']);
  });

  it('a read snapshot reads on the reader connection: one state throughout, and an open group stays open', async () => {
    await insertItem('before');
    // one state throughout: another process commits in the middle, the snapshot does not see it
    const seen = await store.readSnapshot(async (db) => {
      const first = (await sql<{ name: string }>`select name from gc_items order by id`.execute(db)).rows.map((r) => r.name);
      const writer = new BetterSqlite3(file);
      writer.prepare("insert into gc_items (name) values ('outside')").run();
      writer.close();
      const second = (await sql<{ name: string }>`select name from gc_items order by id`.execute(db)).rows.map((r) => r.name);
      return [first, second];
    });
    expect(seen).toEqual([['before'], ['before']]);
    expect(namesOther()).toEqual(['before', 'outside']);

    // arriving while a group is open: it reads what is committed, and the group commits once
    store.queryLog.start();
    const [, snapshot] = await Promise.all([
      insertItem('a'),
      store.readSnapshot(async (db) => (await sql<{ name: string }>`select name from gc_items order by id`.execute(db)).rows.map((r) => r.name)),
      insertItem('b'),
    ]);
    const log = store.queryLog.stop();
    expect(snapshot).toEqual(['before', 'outside']);
    expect(log.filter((q) => q === 'commit')).toHaveLength(1);
    expect(namesOther()).toEqual(['before', 'outside', 'a', 'b']);
    // a snapshot that tries to write is refused (the reader is query-only), and the store goes on
    await expect(store.readSnapshot(async (db) => sql`insert into gc_items (name) values ('sneaky')`.execute(db))).rejects.toThrow(
      /readonly|read-only|query_only/i,
    );
    await insertItem('after');
    expect(namesOther()).toEqual(['before', 'outside', 'a', 'b', 'after']);
  });

  it('a long read snapshot does not hold up the COMMIT of writes that finished before it', async () => {
    const seenByOther = async (name: string): Promise<boolean> => {
      for (let i = 0; i < 100; i++) {
        if (namesOther().includes(name)) return true;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return false;
    };
    // a's transaction finishes with the snapshot queued behind it, then the snapshot holds the
    // connection while it waits: a is committed (and acknowledged) meanwhile, not after it
    let acknowledged = false;
    const [, committedDuringSnapshot] = await Promise.all([
      insertItem('a').then(() => (acknowledged = true)),
      store.readSnapshot(async () => (await seenByOther('a')) && acknowledged),
    ]);
    expect(committedDuringSnapshot).toBe(true);
    // and a write alone whose COMMIT waits a turn is not held up by a snapshot that takes the connection first
    let second = false;
    const [, secondDuringSnapshot] = await Promise.all([
      insertItem('b').then(() => (second = true)),
      new Promise<void>((resolve) => setImmediate(resolve)).then(() => store.readSnapshot(async () => (await seenByOther('b')) && second)),
    ]);
    expect(secondDuringSnapshot).toBe(true);
  });

  it('the reader connection refuses to write: a statement that starts as a query but writes goes to the writer', async () => {
    await insertItem('x');
    const r = await sql<{ name: string }>`with n as (select 'cte' as name) insert into gc_items (name) select name from n returning name`.execute(store.kysely);
    expect(r.rows).toEqual([{ name: 'cte' }]);
    expect(namesOther()).toEqual(['x', 'cte']);
  });

  it('a store closed while a member is part-way through its transaction keeps none of that member’s writes; the members that finished commit', async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    let midway!: () => void;
    const reachedMidway = new Promise<void>((resolve) => (midway = resolve));
    const finished = insertItem('finished');
    // queued behind it: it joins the group as a savepoint, writes half, and is still working when the store closes
    const unfinished = store.kysely.transaction().execute(async (tx) => {
      await sql`insert into gc_items (name) values ('half')`.execute(tx);
      midway();
      await paused;
      await sql`insert into gc_items (name) values ('other half')`.execute(tx);
    });
    await reachedMidway;
    await store.destroy();
    resume();
    await expect(finished).resolves.toBeUndefined();
    await expect(unfinished).rejects.toThrow();
    expect(namesOther()).toEqual(['finished']);
    // afterEach closes a store of its own
    store = openSqlite({ filename: file });
  });

  it('a group holds at most 32 transactions', async () => {
    store.queryLog.start();
    await Promise.all(Array.from({ length: 100 }, (_, i) => insertItem(`n${i}`)));
    const commits = store.queryLog.stop().filter((q) => q === 'commit').length;
    expect(countOther()).toBe(100);
    expect(commits).toBeGreaterThanOrEqual(Math.ceil(100 / 32));
  });
});

describe('SQLite group commit in memory (no second connection can share it)', () => {
  it('a plain read arriving while a group is open commits the group first: it never sees an uncommitted write', async () => {
    const store = openSqlite({ filename: ':memory:' });
    try {
      await sql`create table gc_items (id integer primary key autoincrement, name text not null)`.execute(store.kysely);
      const insertItem = (name: string) =>
        store.kysely.transaction().execute(async (tx) => {
          await sql`insert into gc_items (name) values (${name})`.execute(tx);
        });
      store.queryLog.start();
      const [, , read] = await Promise.all([
        insertItem('a'),
        insertItem('b'),
        sql<{ name: string }>`select name from gc_items order by id`.execute(store.kysely).then((r) => r.rows.map((row) => row.name)),
        insertItem('c'),
      ]);
      const log = store.queryLog.stop();
      expect(read).toEqual(['a', 'b']);
      // the read's COMMIT of a and b, then c's own
      expect(log.filter((q) => q === 'commit')).toHaveLength(2);
    } finally {
      await store.destroy();
    }
  });
});
