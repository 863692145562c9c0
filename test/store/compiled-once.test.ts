import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { compiledForBatches, compiledForRows, compiledOnce } from '../../src/store/compiled-once.js';
import { SESSION_STATUSES } from '../../src/core/lifecycle.js';
import { listSessions } from '../../src/store/session-list-repo.js';
import { findSessionById, findSessionsByIds } from '../../src/store/sessions-repo.js';

/** A query compiled once answers every run exactly as the same query built afresh would. */
describeEachDialect('compiled-once queries', (t) => {
  const titlesIn = compiledOnce((db, p: { ids: readonly number[]; prefix: string }, d) =>
    db
      .selectFrom('sessions')
      .select(['id', 'title'])
      .where(sql<boolean>`id in ${d.valueList(p.ids, 'bigint')}`)
      .where('title', 'like', p.prefix)
      .orderBy('id'),
  );

  it('binds each run its own values, lists of any length in one statement, inside and outside a transaction', async () => {
    const h = t();
    const made = [];
    for (const title of ['alpha one', 'alpha two', 'beta three', 'alpha four']) made.push((await h.create(h.fleetKey, { title })).session);
    const ids = made.map((s) => s.id);
    h.store.queryLog.start();
    const a = await titlesIn(h.store.kysely, { ids, prefix: 'alpha%' });
    const b = await titlesIn(h.store.kysely, { ids: [ids[1]!, ids[2]!], prefix: 'beta%' });
    const c = await h.store.kysely.transaction().execute((tx) => titlesIn(tx, { ids: [ids[0]!], prefix: '%' }));
    const texts = h.store.queryLog.stop().filter((q) => /from "sessions"/.test(q));
    expect(a.map((r) => r.title)).toEqual(['alpha one', 'alpha two', 'alpha four']);
    expect(b.map((r) => r.title)).toEqual(['beta three']);
    expect(c.map((r) => r.title)).toEqual(['alpha one']);
    expect(new Set(texts).size, texts.join('\n')).toBe(1);

    // the repository's compiled reads agree with a fresh build of the same query
    for (const s of made) {
      const fresh = await h.store.kysely.selectFrom('sessions').select(['id', 'uid', 'title', 'status']).where('id', '=', s.id).executeTakeFirstOrThrow();
      const record = await findSessionById(h.store.kysely, h.store, s.id);
      expect({ id: record!.id, uid: record!.uid, title: record!.title, status: record!.status }).toEqual({ ...fresh, id: Number(fresh.id) });
    }
    expect(await findSessionById(h.store.kysely, h.store, 987654321)).toBeNull();
    expect((await findSessionsByIds(h.store.kysely, h.store, [ids[3]!, ids[0]!, ids[3]!])).map((r) => r.id).sort()).toEqual([ids[0], ids[3]].sort());
  });

  it('the unfiltered list, compiled once, pages as the built query does', async () => {
    const h = t();
    for (let i = 0; i < 7; i++) await h.create(h.fleetKey, { title: `listed ${i}` });
    const pages = async (filter: { statuses?: (typeof SESSION_STATUSES)[number][] }) => {
      const out: number[][] = [];
      let beforeId: number | undefined;
      // bounded: a page that repeats its last row would otherwise never end
      for (let n = 0; n < 20; n++) {
        const page = await listSessions(h.store.kysely, h.store, { ...filter, limit: 3, ...(beforeId === undefined ? {} : { beforeId }) });
        if (page.length === 0) return out;
        out.push(page.map((s) => s.id));
        beforeId = page.at(-1)!.id;
      }
      return out;
    };
    // every status: the same rows by the built query
    const built = await pages({ statuses: [...SESSION_STATUSES] });
    expect(built.flat().length).toBeGreaterThanOrEqual(7);
    expect(await pages({})).toEqual(built);
    // a filter set to nothing is a filter: no visible owners, no sessions (never the unfiltered list)
    expect(await listSessions(h.store.kysely, h.store, { visibleOwners: [], limit: 3 })).toEqual([]);
  });

  it('builds its query once per store, not once per run or per transaction', async () => {
    const h = t();
    let builds = 0;
    const counted = compiledOnce((db, p: { id: number }) => {
      builds++;
      return db.selectFrom('sessions').select('id').where('id', '=', p.id);
    });
    const made = (await h.create(h.fleetKey, { title: 'counted' })).session;
    for (let i = 0; i < 3; i++) expect((await counted(h.store.kysely, { id: made.id })).map((r) => Number(r.id))).toEqual([made.id]);
    await h.store.kysely.transaction().execute(async (tx) => expect(await counted(tx, { id: -1 })).toEqual([]));
    expect(builds).toBe(1);
  });

  it('refuses a build that encodes a stand-in, and a run missing a value', async () => {
    const h = t();
    const encodesAtBuild = compiledOnce((db, p: { title: string }) => db.selectFrom('sessions').select('id').where('title', '=', JSON.stringify(p.title)));
    await expect(encodesAtBuild(h.store.kysely, { title: 'x' })).rejects.toThrow(/serialised while the query was built/);
    const textAtBuild = compiledOnce((db, p: { title: string }) => db.selectFrom('sessions').select('id').where('title', '=', `${p.title}%`));
    await expect(textAtBuild(h.store.kysely, { title: 'x' })).rejects.toThrow(/used as text or a number while the query was built/);
    await expect(titlesIn(h.store.kysely, { ids: [1] } as unknown as { ids: number[]; prefix: string })).rejects.toThrow(/no value for "prefix"/);
  });
});

/** A batched statement compiled once per shape stores every row's own values, as a fresh build would. */
describeEachDialect('compiled-once batches', (t) => {
  type Probe = { tag: string; n: number | null; note: string | null };
  let builds = 0;
  const insertProbes = compiledForBatches((db, b: { rows: readonly Probe[]; more: readonly Probe[] }, shared: { batch: string }) => {
    builds++;
    const all = [...b.rows, ...b.more];
    return sql<{ tag: string }>`insert into compiled_probe (batch, tag, n, note, position) values ${sql.join(
      all.map((r, i) => sql`(${shared.batch}, ${r.tag}, ${r.n}, ${r.note}, ${i})`),
    )} returning tag`;
  });
  const insertRows = compiledForRows((db, rows: readonly { tag: string; note: string }[]) =>
    db.insertInto('settings').values(rows.map((r) => ({ key: r.tag, value: r.note, updated_at: '2026-12-04T00:00:00.000Z' }))),
  );

  it('binds each row its own values, builds once per shape, and builds a large batch as it comes', async () => {
    const h = t();
    const db = h.store.kysely;
    await sql`create table compiled_probe (batch text not null, tag text not null, n bigint, note text, position integer not null)`.execute(db);
    const probes = (prefix: string, count: number): Probe[] =>
      Array.from({ length: count }, (_, i) => ({ tag: `${prefix}${i}`, n: i % 3 === 0 ? null : i * 7, note: i % 2 === 0 ? `note ${prefix}${i}` : null }));
    const stored = async (batch: string) =>
      (
        await sql<Probe & { position: number }>`select tag, n, note, position from compiled_probe where batch = ${batch} order by position`.execute(db)
      ).rows.map((r) => ({ tag: r.tag, n: r.n === null ? null : Number(r.n), note: r.note }));

    builds = 0;
    const shapes: [number, number][] = [
      [1, 0],
      [2, 1],
      [1, 0],
      [2, 1],
      [0, 3],
    ];
    for (const [k, [rows, more]] of shapes.entries()) {
      const batch = `b${k}`;
      const [a, b] = [probes(`${batch}r`, rows), probes(`${batch}m`, more)];
      const returned = await db.transaction().execute((tx) => insertProbes(tx, { rows: a, more: b }, { batch }));
      expect(returned.map((r) => r.tag).sort()).toEqual([...a, ...b].map((p) => p.tag).sort());
      expect(await stored(batch)).toEqual([...a, ...b]);
    }
    // three shapes: (1,0), (2,1), (0,3)
    expect(builds).toBe(3);

    // past the rows a shape is kept for: built for the run, every row still its own
    const big = probes('big', 40);
    await insertProbes(db, { rows: big, more: [] }, { batch: 'big' });
    expect(await stored('big')).toEqual(big);
    expect(builds).toBe(4);
    await insertProbes(db, { rows: probes('big2', 40), more: [] }, { batch: 'big2' });
    expect(builds).toBe(5);

    // the query builder's multi-row insert, through the one-batch form
    await insertRows(db, [
      { tag: 'probe.a', note: 'first' },
      { tag: 'probe.b', note: 'second' },
    ]);
    const settings = await db.selectFrom('settings').select(['key', 'value']).where('key', 'like', 'probe.%').orderBy('key').execute();
    expect(settings).toEqual([
      { key: 'probe.a', value: 'first' },
      { key: 'probe.b', value: 'second' },
    ]);

    // rows handed to `values` whole: their keys are part of the shape, so a column one run leaves
    // to its default is bound on the next run that names it, never dropped
    type ProbeRow = { batch: string; tag: string; n?: number | null; note?: string | null; position: number };
    const insertWhole = compiledForRows((db, rows: readonly ProbeRow[]) =>
      db.withTables<{ compiled_probe: ProbeRow }>().insertInto('compiled_probe').values(rows),
    );
    await insertWhole(db, [{ batch: 'whole1', tag: 'w1', position: 0 }]);
    await insertWhole(db, [{ batch: 'whole2', tag: 'w2', n: 5, note: 'named', position: 0 }]);
    await insertWhole(db, [
      { batch: 'whole3', tag: 'w3a', position: 0 },
      { batch: 'whole3', tag: 'w3b', note: 'second only', position: 1 },
    ]);
    expect(await stored('whole1')).toEqual([{ tag: 'w1', n: null, note: null }]);
    expect(await stored('whole2')).toEqual([{ tag: 'w2', n: 5, note: 'named' }]);
    expect(await stored('whole3')).toEqual([
      { tag: 'w3a', n: null, note: null },
      { tag: 'w3b', n: null, note: 'second only' },
    ]);
  });
});
