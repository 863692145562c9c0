import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { juniorsOf, juniorsPageOf, loadHierarchyRows, seniorsOf } from '../../src/store/lineage-repo.js';
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
});
