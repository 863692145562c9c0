import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/store/dialect/sqlite.js';
import { SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES, walCheckpointer, WRITER_SAFETY_PAGES } from '../../src/store/dialect/sqlite-checkpointer.js';

/*
 * WAL checkpoints on a worker thread (src/store/dialect/sqlite-checkpointer.ts): once a store has
 * committed enough, a thread with its own connection copies the WAL into the database file, and
 * the writer's own automatic checkpoint (which stops the event loop for two fsyncs) moves far out.
 * What must hold: the worker does the copying; the writer's setting follows the worker (far out
 * while it runs, SQLite's default when it fails); once stopped (a store destroyed) it checkpoints
 * nothing more, and the store's last connection still removes the WAL on close.
 */

/** Polls `done` until it holds; not a timing assertion — the deadline only ends a hang. */
async function eventually(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Commits pages through a connection of its own that never checkpoints, waits a while, and
 * returns whether the database file grew: whether some other connection checkpointed them. The
 * wait is many times the worker's interval; it bounds the check, it does not time anything.
 */
async function someoneCheckpoints(file: string): Promise<boolean> {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('wal_autocheckpoint = 0');
    db.exec('create table if not exists later (id integer primary key, body blob not null)');
    const before = statSync(file).size;
    const insert = db.prepare('insert into later (body) values (?)');
    for (let i = 0; i < 100; i++) insert.run(Buffer.alloc(4096, 1));
    await new Promise((resolve) => setTimeout(resolve, 500));
    return statSync(file).size > before;
  } finally {
    // not closing as the last connection would checkpoint: the test's dir is removed anyway
    db.pragma('wal_autocheckpoint = 0');
    db.close();
  }
}

/** A checkpointer that starts at its first commit and records what it sets and why it failed. */
function watchedCheckpointer(filename: string) {
  const settings: number[] = [];
  const failures: string[] = [];
  const checkpointer = walCheckpointer(filename, (pages) => settings.push(pages), {
    startAfterCommits: 1,
    intervalMs: 10,
    onFailure: (reason) => failures.push(reason),
  });
  return { checkpointer, settings, failures };
}

describe('SQLite WAL checkpointer', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'warrant-checkpointer-'));
    file = join(dir, 'store.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies the WAL into the database file from its own thread, and checkpoints nothing once stopped', async () => {
    const writer = new BetterSqlite3(file);
    writer.pragma('journal_mode = WAL');
    writer.exec('create table blobs (id integer primary key, body blob not null)');
    const settings: number[] = [];
    const checkpointer = walCheckpointer(
      file,
      (pages) => {
        settings.push(pages);
        writer.pragma(`wal_autocheckpoint = ${pages}`);
      },
      { startAfterCommits: 3, intervalMs: 10 },
    );
    const insert = writer.prepare('insert into blobs (body) values (?)');
    const commit = () => {
      insert.run(Buffer.alloc(4096, 7));
      checkpointer.committed();
    };
    for (let i = 0; i < 3; i++) commit();
    await eventually(() => settings.includes(WRITER_SAFETY_PAGES), 'the writer handed its checkpoints to the worker');
    expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(WRITER_SAFETY_PAGES);

    // 200 blobs of a page: some 600 WAL frames with their overflow and b-tree pages, well under
    // both the writer's safety net and SQLite's default, so only the
    // worker can have copied them into the database file
    const before = statSync(file).size;
    for (let i = 0; i < 200; i++) commit();
    await eventually(() => statSync(file).size >= before + 200 * 4096, 'the database file holds the committed pages');

    await checkpointer.stop();
    // stopping is not failing: the writer's setting stays (the store closes next)
    expect(settings).toEqual([WRITER_SAFETY_PAGES]);
    expect(await someoneCheckpoints(file)).toBe(false);
    writer.close();
  });

  it('gives the writer back SQLite’s own checkpoints when the worker fails to open, says why, and does not start it again', async () => {
    // no such file: the worker's connection fails as it opens
    const { checkpointer, settings, failures } = watchedCheckpointer(join(dir, 'missing.db'));
    checkpointer.committed();
    await eventually(() => settings.length > 0, 'the failure was reported');
    expect(settings).toEqual([SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/directory does not exist|unable to open/i);
    for (let i = 0; i < 5; i++) checkpointer.committed();
    await checkpointer.stop();
    expect(settings).toEqual([SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES]);
    expect(failures).toHaveLength(1);
  });

  it('a checkpoint that fails (not for a lock) ends the worker once, with the reason', async () => {
    // a file that opens but is no database: the first checkpoint fails, after the worker was ready
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    const { checkpointer, settings, failures } = watchedCheckpointer(file);
    checkpointer.committed();
    await eventually(() => failures.length > 0, 'the failure was reported');
    // ready first (the safety net), then SQLite's default once the checkpoint failed
    expect(settings).toEqual([WRITER_SAFETY_PAGES, SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES]);
    expect(failures[0]).toMatch(/not a database/i);
    await checkpointer.stop();
    expect(failures).toHaveLength(1);
  });

  it('a stop before the worker is ready, and a second stop, end it quietly', async () => {
    const writer = new BetterSqlite3(file);
    writer.pragma('journal_mode = WAL');
    const { checkpointer, settings, failures } = watchedCheckpointer(file);
    checkpointer.committed();
    // the same tick: the thread has not run its source yet
    await Promise.all([checkpointer.stop(), checkpointer.stop()]);
    await checkpointer.stop();
    // a stop is no failure, and a worker stopped before it was ready never moved the writer's setting
    expect(failures).toEqual([]);
    expect(settings).toEqual([]);
    expect(await someoneCheckpoints(file)).toBe(false);
    writer.close();
  });

  it('a file store starts it after its first commits and stops it when destroyed', async () => {
    const store = openSqlite({ filename: file });
    const autocheckpoint = async () =>
      (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.kysely)).rows[0]?.wal_autocheckpoint ?? null;
    try {
      await sql`create table items (id integer primary key, name text not null)`.execute(store.kysely);
      expect(await autocheckpoint()).toBe(SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES);
      for (let i = 0; i < 600; i++) {
        await store.kysely.transaction().execute(async (tx) => {
          await sql`insert into items (name) values (${`item ${i}`})`.execute(tx);
        });
      }
      let setting: number | null = null;
      const deadline = Date.now() + 15_000;
      while ((setting = await autocheckpoint()) !== WRITER_SAFETY_PAGES && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(setting).toBe(WRITER_SAFETY_PAGES);
    } finally {
      await store.destroy();
    }
    // the store's last connection removed its WAL as it closed; and no thread is left behind
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(await someoneCheckpoints(file)).toBe(false);
  });

  it('a running worker does not keep its process alive', () => {
    const writer = new BetterSqlite3(file);
    writer.pragma('journal_mode = WAL');
    writer.close();
    // the source itself (through tsx's loader, so never a stale build), in a process of its own that never stops the worker
    const module = join(import.meta.dirname, '../../src/store/dialect/sqlite-checkpointer.ts');
    const script = `
      const { walCheckpointer } = await import(${JSON.stringify(module)});
      // alive until the worker is ready; after that only the worker could keep the process
      const alive = setTimeout(() => {}, 10_000);
      const c = walCheckpointer(${JSON.stringify(file)}, (pages) => { console.log('pages', pages); if (pages === 4000) clearTimeout(alive); }, { startAfterCommits: 1, intervalMs: 10 });
      c.committed();`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 15_000 });
    // it ran (the worker reported ready), and the process ended by itself, not by the timeout
    expect(child.stdout).toContain('pages 4000');
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
  });

  it('an in-memory store has no WAL and no worker', async () => {
    const store = openSqlite({ filename: ':memory:' });
    try {
      await sql`create table items (id integer primary key)`.execute(store.kysely);
      for (let i = 0; i < 600; i++) await store.kysely.transaction().execute((tx) => sql`insert into items default values`.execute(tx));
      const rows = (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.kysely)).rows;
      expect(rows[0]?.wal_autocheckpoint).toBe(SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES);
    } finally {
      await store.destroy();
    }
  });
});
