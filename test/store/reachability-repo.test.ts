import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { loadHierarchyRows, seniorsOf } from '../../src/store/lineage-repo.js';
import { seniorIdsOf } from '../../src/store/reachability-repo.js';

/** A reachability search reads seniors as ids: the same edges `seniorsOf` resolves, for every kind of parent. */
describeEachDialect('reachability repository: seniorIdsOf', (t) => {
  it('names exactly the seniors seniorsOf resolves (column, legacy id and uid keys, uncles), spawn parents alone with spawnOnly', async () => {
    const h = t();
    const root = (await h.create(h.fleetKey, { title: 'root' })).session;
    const other = (await h.create(h.fleetKey, { title: 'other' })).session;
    const child = (await h.create(h.fleetKey, { title: 'child', parent_session_id: root.id })).session;
    const byId = (await h.create(h.fleetKey, { title: 'legacy by id', custom_metadata: { router_session_id: `#${root.id}` } })).session;
    const byUid = (await h.create(h.fleetKey, { title: 'legacy by uid', custom_metadata: { router_session_id: root.uid.replace(/-/g, '').toUpperCase() } }))
      .session;
    const missing = (await h.create(h.fleetKey, { title: 'legacy naming nobody', custom_metadata: { router_session_id: '987654321' } })).session;
    const younger = (await h.create(h.fleetKey, { title: 'younger', custom_metadata: { router_session_id: String(root.id) } })).session;
    // a legacy key naming a session younger than the junior is no parent
    const elder = (await h.create(h.fleetKey, { title: 'names a younger one', custom_metadata: { router_session_id: 'placeholder' } })).session;
    const youngest = (await h.create(h.fleetKey, { title: 'youngest' })).session;
    await h.store.kysely
      .updateTable('sessions')
      .set({ custom_metadata: JSON.stringify({ router_session_id: youngest.uid }), parent_basis: 'legacy' })
      .where('id', '=', elder.id)
      .execute();
    // a column parent younger than its junior (stored data may hold one): no parent
    const olderJunior = (await h.create(h.fleetKey, { title: 'names a younger parent by column' })).session;
    const youngParent = (await h.create(h.fleetKey, { title: 'younger parent' })).session;
    await h.store.kysely
      .updateTable('sessions')
      .set({ parent_session_id: youngParent.id, parent_basis: 'declared' })
      .where('id', '=', olderJunior.id)
      .execute();
    // a key whose session is gone (it was deleted after the junior named it)
    await h.store.kysely.updateTable('sessions').set({ parent_basis: 'legacy' }).where('id', '=', missing.id).execute();
    const now = new Date().toISOString();
    const uncle = (session_id: number, uncle_session_id: number) => ({
      session_id,
      uncle_session_id,
      source: 'rest.follow_up',
      basis: 'declared',
      recorded_by_actor_id: null,
      created_at: now,
    });
    await h.store.kysely
      .insertInto('session_uncles')
      .values([uncle(child.id, other.id), uncle(byUid.id, other.id), uncle(root.id, youngest.id)])
      .execute();
    for (const s of [byId, byUid, younger]) expect([s.title, s.parent_basis]).toEqual([s.title, 'legacy']);

    const all = [root, other, child, byId, byUid, missing, younger, elder, youngest, olderJunior, youngParent].map((s) => s.id);
    const rows = await loadHierarchyRows(h.store.kysely, h.store, all);
    const sorted = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b);
    for (const level of [all, [child.id], [byId.id, byUid.id], [elder.id, missing.id], [root.id]]) {
      const juniors = rows.filter((r) => level.includes(r.id));
      const edges = await seniorsOf(h.store.kysely, h.store, juniors, { withHasUncles: false });
      expect(sorted(await seniorIdsOf(h.store.kysely, h.store, level, { spawnOnly: false }))).toEqual(sorted(edges.map((e) => e.senior.id)));
      expect(sorted(await seniorIdsOf(h.store.kysely, h.store, level, { spawnOnly: true }))).toEqual(
        sorted(edges.filter((e) => e.edge.kind === 'spawn').map((e) => e.senior.id)),
      );
    }
    // the case the comparison must cover: every kind of edge was seen, and the misses stay misses
    expect(sorted(await seniorIdsOf(h.store.kysely, h.store, [child.id, byId.id, byUid.id, root.id], { spawnOnly: false }))).toEqual(
      sorted([root.id, other.id, youngest.id]),
    );
    for (const legacy of [byId, byUid, younger]) expect(await seniorIdsOf(h.store.kysely, h.store, [legacy.id], { spawnOnly: true })).toEqual([root.id]);
    expect(await seniorIdsOf(h.store.kysely, h.store, [missing.id, elder.id], { spawnOnly: false })).toEqual([]);
    expect(await seniorIdsOf(h.store.kysely, h.store, [olderJunior.id], { spawnOnly: false })).toEqual([]);
  });
});
