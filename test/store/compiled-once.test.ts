import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { compiledOnce } from '../../src/store/compiled-once.js';
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
    await expect(titlesIn(h.store.kysely, { ids: [1] } as unknown as { ids: number[]; prefix: string })).rejects.toThrow(/no value for "prefix"/);
  });
});
