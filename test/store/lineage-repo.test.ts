import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { juniorsOf, juniorsPageOf } from '../../src/store/lineage-juniors-repo.js';
import { loadHierarchyRows, seniorsOf } from '../../src/store/lineage-repo.js';
import { legacyParentKeySpellings } from '../../src/core/legacy-parent-key.js';

describeEachDialect('lineage repository: juniorsOf / seniorsOf', (t) => {
  it('resolves column, legacy-key and uncle edges in both directions, and reads only the projection', async () => {
    const h = t();
    const root = (await h.create(h.fleetKey, { title: 'root' })).session;
    const child = (await h.create(h.fleetKey, { title: 'child', parent_session_id: root.id })).session;
    const legacyById = (await h.create(h.fleetKey, { title: 'legacy by id', custom_metadata: { router_session_id: String(root.id) } })).session;
    const legacyByUid = (await h.create(h.fleetKey, { title: 'legacy by uid', custom_metadata: { router_session_id: root.uid } })).session;
    const other = (await h.create(h.fleetKey, { title: 'other' })).session;
    expect(legacyById.parent_basis).toBe('legacy');
    expect(legacyById.parent_session_id).toBeNull();
    expect(legacyById.lineage_parent_id).toBe(root.id);
    expect(legacyByUid.lineage_parent_id).toBe(root.id);
    await h.store.kysely
      .insertInto('session_uncles')
      .values({
        session_id: child.id,
        uncle_session_id: other.id,
        source: 'rest.follow_up',
        basis: 'declared',
        recorded_by_actor_id: null,
        created_at: new Date().toISOString(),
      })
      .execute();

    const loaded = await loadHierarchyRows(h.store.kysely, h.store, [root.id, other.id]);
    const rootRow = loaded.find((r) => r.id === root.id)!;
    const otherRow = loaded.find((r) => r.id === other.id)!;
    await h.ctx.live.settle();
    h.store.queryLog.start();
    const down = await juniorsOf(h.store.kysely, h.store, [rootRow, otherRow]);
    // the log is the store's: on PostgreSQL a late NOTIFY of the creates above can make the
    // live hub read live_events inside this window; those reads are not juniorsOf's
    const queries = h.store.queryLog.stop().filter((q) => !/"live_events"/.test(q));
    expect(queries).toHaveLength(1);
    expect(queries.join(' ')).not.toMatch(/session_transcripts|session_prompts/);
    expect(down.map((d) => [d.edge.seniorId, d.junior.id, d.edge.kind])).toEqual([
      [root.id, child.id, 'spawn'],
      [other.id, child.id, 'uncle'],
      [root.id, legacyById.id, 'spawn'],
      [root.id, legacyByUid.id, 'spawn'],
    ]);
    expect(down.find((d) => d.edge.kind === 'uncle')!.edge.basis).toBe('declared');

    const juniors = await loadHierarchyRows(h.store.kysely, h.store, [child.id, legacyById.id, legacyByUid.id]);
    const up = await seniorsOf(h.store.kysely, h.store, juniors);
    expect(up.map((u) => [u.edge.juniorId, u.senior.id, u.edge.kind])).toEqual([
      [child.id, root.id, 'spawn'],
      [child.id, other.id, 'uncle'],
      [legacyById.id, root.id, 'spawn'],
      [legacyByUid.id, root.id, 'spawn'],
    ]);
  });

  it('a legacy key finds its senior through the probe index only when it is exactly one of the spellings', async () => {
    const h = t();
    const router = (await h.create(h.fleetKey, { title: 'router' })).session;
    const bare = router.uid.replace(/-/g, '');
    const mixed = router.uid.replace(/[a-f]/, (c: string) => c.toUpperCase());
    // each of these reduces to the router's probe (its id or bare lowercase uid) but is no spelling of it
    const nearMisses = [
      `uid:${router.id}`,
      `##${router.id}`,
      `#uid:${router.id}`,
      `${String(router.id).slice(0, 1)}-${String(router.id).slice(1)}`,
      `#${bare}`,
      mixed,
      `uid:${mixed}`,
      `${bare.slice(0, 8)}-${bare.slice(8)}`,
      `uid:uid:${bare}`,
    ];
    const spellings = legacyParentKeySpellings(router);
    const keyOf = new Map<number, string>();
    for (const key of [...spellings, ...nearMisses]) {
      const s = (await h.create(h.fleetKey, { title: `key ${key}` })).session;
      // written as an import would: the key and the basis, straight into the row
      await h.store.kysely
        .updateTable('sessions')
        .set({ custom_metadata: JSON.stringify({ router_session_id: key }), parent_basis: 'legacy' })
        .where('id', '=', s.id as number)
        .execute();
      keyOf.set(s.id as number, key);
    }
    const [routerRow] = await loadHierarchyRows(h.store.kysely, h.store, [router.id]);
    const page = await juniorsPageOf(h.store.kysely, h.store, [routerRow!], { limit: 100 });
    expect(page.edges.map((e) => keyOf.get(e.junior.id)).sort()).toEqual([...spellings].sort());
    // nor is a near miss picked (a picked row without an edge would still take a place on the page)
    const lastSpelling = Math.max(...[...keyOf].filter(([, k]) => spellings.includes(k)).map(([id]) => id));
    expect(page.lastPickedId).toBe(lastSpelling);
  });

  it('a juniors page: the lowest ids outside the excluded, its limit, edges from the scope by every representation, and uncle chips', async () => {
    const h = t();
    const root = (await h.create(h.fleetKey, { title: 'root' })).session;
    const side = (await h.create(h.fleetKey, { title: 'side' })).session;
    const elsewhere = (await h.create(h.fleetKey, { title: 'elsewhere' })).session;
    const kids: number[] = [];
    for (let i = 0; i < 6; i++) kids.push((await h.create(h.fleetKey, { title: `kid ${i}`, parent_session_id: root.id })).session.id);
    const legacyKid = (await h.create(h.fleetKey, { title: 'legacy kid', custom_metadata: { router_session_id: root.uid } })).session.id;
    // a junior of the scope by an uncle edge only, and a spawned one that also has an uncle elsewhere
    const adopted = (await h.create(h.fleetKey, { title: 'adopted', parent_session_id: elsewhere.id })).session.id;
    const uncle = (session: number, senior: number) =>
      h.store.kysely
        .insertInto('session_uncles')
        .values({
          session_id: session,
          uncle_session_id: senior,
          source: 'rest.follow_up',
          basis: 'declared',
          recorded_by_actor_id: null,
          created_at: new Date().toISOString(),
        })
        .execute();
    await uncle(adopted, side.id);
    await uncle(kids[3]!, elsewhere.id);
    const seniors = await loadHierarchyRows(h.store.kysely, h.store, [root.id, side.id]);
    const page = (options: Parameters<typeof juniorsPageOf>[3]) => juniorsPageOf(h.store.kysely, h.store, seniors, options);

    // everything: six kids, the legacy kid, the adopted one; exhausted
    const all = await page({ limit: 20 });
    expect([...new Set(all.edges.map((e) => e.junior.id))]).toEqual([...kids, legacyKid, adopted]);
    expect(all.exhausted).toBe(true);
    expect(all.edges.find((e) => e.junior.id === adopted)!.edge).toMatchObject({ seniorId: side.id, kind: 'uncle' });
    expect(all.edges.find((e) => e.junior.id === legacyKid)!.edge).toMatchObject({ seniorId: root.id, kind: 'spawn' });
    // chips: every uncle edge of each picked junior, from the scope or not
    expect(all.uncles.map((u) => [u.edge.juniorId, u.edge.seniorId])).toEqual([
      [kids[3], elsewhere.id],
      [adopted, side.id],
    ]);

    // the three lowest ids that are not excluded, when the excluded ones are the lowest of all
    const some = await page({ limit: 3, exclude: [kids[0]!, kids[1]!, kids[3]!] });
    expect(some.edges.map((e) => e.junior.id)).toEqual([kids[2], kids[4], kids[5]]);
    expect(some.lastPickedId).toBe(kids[5]);
    expect(some.exhausted).toBe(false);
    expect(some.uncles).toEqual([]);
    // the next page after it, with an exclusion beyond the limit
    const next = await page({ limit: 3, afterId: kids[5]!, exclude: [kids[0]!, legacyKid] });
    expect(next.edges.map((e) => e.junior.id)).toEqual([adopted]);
    expect(next.exhausted).toBe(true);
    // every junior excluded: an empty, exhausted page
    const none = await page({ limit: 5, exclude: [...kids, legacyKid, adopted] });
    expect(none).toEqual({ edges: [], lastPickedId: null, exhausted: true, uncles: [] });

    // one statement for a page whose juniors have no uncle edges, a second only when one has
    await h.ctx.live.settle();
    h.store.queryLog.start();
    await page({ limit: 2 });
    expect(h.store.queryLog.stop().filter((q) => !/"live_events"/.test(q))).toHaveLength(1);
    h.store.queryLog.start();
    await page({ limit: 4 });
    expect(h.store.queryLog.stop().filter((q) => !/"live_events"/.test(q))).toHaveLength(2);
  });

  it('a juniors page of a wide fan-out: the same lowest ids whether the rows are picked in the process or by the engine', async () => {
    const h = t();
    const root = (await h.create(h.fleetKey, { title: 'router' })).session;
    // more juniors than a page reads unsorted (256 for a small page): the engine's sort picks those
    const kids: number[] = [];
    for (let i = 0; i < 270; i++) kids.push((await h.create(h.fleetKey, { title: `kid ${i}`, parent_session_id: root.id })).session.id);
    const seniors = await loadHierarchyRows(h.store.kysely, h.store, [root.id]);
    const page = async (options: Parameters<typeof juniorsPageOf>[3]) => {
      await h.ctx.live.settle();
      h.store.queryLog.start();
      const result = await juniorsPageOf(h.store.kysely, h.store, seniors, options);
      const sorted = h.store.queryLog.stop().some((q) => /order by id limit/.test(q));
      return { ids: result.edges.map((e) => e.junior.id), exhausted: result.exhausted, lastPickedId: result.lastPickedId, sorted };
    };
    // an embedded store sorts here unless the candidates outnumber the bound; PostgreSQL always in the engine
    const local = h.store.capabilities.localStatements;

    const wide = await page({ limit: 5, exclude: [kids[0]!, kids[2]!] });
    expect(wide).toEqual({ ids: [kids[1], kids[3], kids[4], kids[5], kids[6]], exhausted: false, lastPickedId: kids[6], sorted: true });

    // past most of them: few candidates, picked in the process on SQLite, the same answer
    const tail = await page({ limit: 5, afterId: kids[262]!, exclude: [kids[264]!] });
    expect(tail).toEqual({ ids: [kids[263], kids[265], kids[266], kids[267], kids[268]], exhausted: false, lastPickedId: kids[268], sorted: !local });
    const last = await page({ limit: 5, afterId: kids[266]! });
    expect(last).toEqual({ ids: [kids[267], kids[268], kids[269]], exhausted: true, lastPickedId: kids[269], sorted: !local });

    // a page as large as the fan-out reads it unsorted (its bound grows with the page)
    const whole = await page({ limit: 300, exclude: [kids[100]!] });
    expect(whole.ids).toEqual(kids.filter((_, i) => i !== 100));
    expect(whole).toMatchObject({ exhausted: true, sorted: !local });
  });
});
