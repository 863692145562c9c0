import { expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { hierarchyOf } from '../../src/app/lineage/hierarchy.js';
import { inWriteTx } from '../../src/app/write-scope.js';
import type { SeamPoint } from '../../src/app/context.js';
import type { HierarchyChange, HierarchyUpdate } from '../../src/app/lineage/hierarchy-hub.js';
import { walkCounts } from '../../src/app/lineage/hierarchy-refresh.js';
import type { Hierarchy } from '../../src/core/hierarchy-types.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { removeUncleEdgeRow, spawn, writeUncleEdge } from '../helpers/lineage.js';

const admin = systemCaller('cli');

describeEachDialect('live refresh of hierarchy views', (t) => {
  /** One lineage: a trigger, four routers, three workers under each. */
  async function lineage(h: ReturnType<typeof t>, title: string) {
    const trigger = await spawn(h, null, { agent_root: 'trigger', title });
    const routers: number[] = [];
    const workers: number[] = [];
    for (let r = 0; r < 4; r++) {
      const router = await spawn(h, trigger, { agent_root: 'router' });
      routers.push(router);
      for (let w = 0; w < 3; w++) workers.push(await spawn(h, router, { agent_root: 'worker' }));
    }
    return { trigger, routers, workers };
  }

  /** The lineage and a second tree joined to it by an uncle edge. */
  async function fleet() {
    const h = t();
    const { trigger, routers, workers } = await lineage(h, 'trigger');
    const other = await spawn(h, null, { agent_root: 'router', title: 'another tree' });
    const otherWorker = await spawn(h, other, { agent_root: 'worker' });
    await writeUncleEdge(h, other, workers[4]!, 'declared');
    return { h, trigger, routers, workers, other, otherWorker, all: [trigger, ...routers, ...workers, other, otherWorker] };
  }

  /** Every viewer of every session, each keeping the latest view it was told. */
  async function watchAll(h: ReturnType<typeof t>, ids: number[]) {
    await h.ctx.hierarchies.settle();
    const latest = new Map<number, Hierarchy | null>();
    const updates: HierarchyUpdate[] = [];
    const subs: { unsubscribe(): void }[] = [];
    for (const id of ids) {
      const sub = await h.ctx.hierarchies.subscribe(id, admin, (u) => {
        updates.push(u);
        latest.set(u.viewerId, u.hierarchy);
      });
      latest.set(id, sub.initial);
      subs.push(sub);
    }
    return { latest, updates, close: () => subs.forEach((s) => s.unsubscribe()) };
  }

  async function expectFresh(h: ReturnType<typeof t>, latest: Map<number, Hierarchy | null>): Promise<void> {
    for (const [id, view] of latest) {
      if (view === null) continue;
      expect(view).toEqual(await hierarchyOf(h.ctx, admin, id));
    }
  }

  it('a change committed while a viewer walks its first view still reaches that viewer (never stale until the next change)', async () => {
    const h = t();
    const root = await spawn(h, null, { agent_root: 'router', title: 'subscribed while it changes' });
    await h.ctx.hierarchies.settle();
    let child: number | undefined;
    h.ctx.seams = {
      afterRead: async (point: SeamPoint) => {
        if (point !== 'hierarchy-subscribe' || child !== undefined) return;
        // the first walk has read; a child is spawned and its live event dispatched before the viewer is registered
        child = await spawn(h, root, { agent_root: 'worker' });
        await h.ctx.live.settle();
        await h.ctx.hierarchies.settle();
        broadcastsBeforeRegistration = broadcasts.length;
      },
    };
    const updates: Hierarchy[] = [];
    // the broadcast form (and any viewer already open) had the spawn: the new viewer's catch-up must not repeat it
    const broadcasts: HierarchyChange[] = [];
    let broadcastsBeforeRegistration = -1;
    const stopBroadcasts = h.ctx.hierarchies.onChange((c) => broadcasts.push(c));
    try {
      const sub = await h.ctx.hierarchies.subscribe(root, admin, (u) => {
        if (u.hierarchy) updates.push(u.hierarchy);
      });
      expect(child).toBeDefined();
      // the first walk predates the child: the update must bring it
      expect(sub.initial.nodes.map((n) => n.id)).not.toContain(child);
      await h.ctx.hierarchies.settle();
      expect(updates.length, 'the viewer was told of the child').toBeGreaterThan(0);
      expect(updates.at(-1)!.nodes.map((n) => n.id)).toContain(child);
      expect(updates.at(-1)).toEqual(await hierarchyOf(h.ctx, admin, root));
      expect(broadcastsBeforeRegistration, 'the spawn was broadcast before the viewer registered').toBeGreaterThan(0);
      expect(broadcasts.length, 'no broadcast repeated for the catch-up').toBe(broadcastsBeforeRegistration);
      sub.unsubscribe();
    } finally {
      stopBroadcasts();
      h.ctx.seams = undefined;
    }
  });

  it("recomputes every open viewer's view after each kind of change, and each equals a fresh hierarchyOf", async () => {
    const { h, routers, workers, other, otherWorker, all } = await fleet();
    const watch = await watchAll(h, all);
    try {
      // a spawn
      const helper = await spawn(h, workers[0]!, { agent_root: 'helper' });
      await h.ctx.hierarchies.settle();
      await expectFresh(h, watch.latest);
      expect(watch.latest.get(workers[0]!)!.nodes.map((n) => n.id)).toContain(helper);

      // an uncle edge written by a graph writer (lineage_changed)
      await writeUncleEdge(h, otherWorker, routers[2]!, 'authenticated');
      await h.ctx.hierarchies.settle();
      await expectFresh(h, watch.latest);
      expect(watch.latest.get(routers[2]!)!.roots).toContain(other);

      // its removal
      await removeUncleEdgeRow(h, otherWorker, routers[2]!);
      await h.ctx.hierarchies.settle();
      await expectFresh(h, watch.latest);
      expect(watch.latest.get(routers[2]!)!.roots).not.toContain(other);

      // a title change and a status change of one node
      const before = watch.updates.length;
      expect((await h.request('PATCH', `/api/v1/sessions/${workers[7]}`, { token: h.fleetKey, body: { title: 'renamed worker' } })).status).toBe(200);
      expect((await h.request('POST', `/api/v1/sessions/${workers[8]}/stop`, { token: h.fleetKey, body: {} })).status).toBe(200);
      await h.ctx.hierarchies.settle();
      await expectFresh(h, watch.latest);
      expect(watch.latest.get(workers[7]!)!.nodes.find((n) => n.id === workers[7])!.title).toBe('renamed worker');
      expect(watch.latest.get(routers[0]!)!.nodes.find((n) => n.id === workers[8])!.status).toBe('stopped');
      // the viewers of the changed tree were told; the other tree's viewers were not
      const told = new Set(watch.updates.slice(before).map((u) => u.viewerId));
      expect(told.has(routers[0]!)).toBe(true);
      expect(told.has(workers[4]!)).toBe(true); // its uncle edge joins the other tree to the trigger's
      expect(told.has(otherWorker)).toBe(false); // whose view does not reach the trigger's tree

      // a change that alters no view notifies nobody
      const quiet = watch.updates.length;
      expect((await h.request('PATCH', `/api/v1/sessions/${workers[1]}`, { token: h.fleetKey, body: { starred: true } })).status).toBe(200);
      await h.ctx.hierarchies.settle();
      expect(watch.updates.length).toBe(quiet);

      // a deletion: its viewer is told the session is gone, the others get their new views
      const { token } = await h.human(uniqueKey('admin'), { admin: true });
      expect((await h.request('DELETE', `/api/v1/sessions/${workers[2]}`, { token })).status).toBe(200);
      await h.ctx.hierarchies.settle();
      expect(watch.latest.get(workers[2]!)).toBeNull();
      watch.latest.delete(workers[2]!);
      await expectFresh(h, watch.latest);
    } finally {
      watch.close();
    }
  });

  it('loads the affected tree once per edge change, not once per viewer, and re-walks nothing for a title', async () => {
    const { h, routers, workers, other, otherWorker, all } = await fleet();
    h.store.queryLog.start();
    await hierarchyOf(h.ctx, admin, workers[5]!);
    const oneWalk = h.store.queryLog.stop().length;
    const watch = await watchAll(h, all);
    try {
      // a title: rows only, so every view showing the renamed worker (and its router) is rebuilt from its last walk
      let stats = { ...h.ctx.hierarchies.stats };
      expect((await h.request('PATCH', `/api/v1/sessions/${workers[5]}`, { token: h.fleetKey, body: { title: 'one change' } })).status).toBe(200);
      await h.ctx.hierarchies.settle();
      const showing = [...watch.latest.values()].filter((v) => v!.nodes.some((n) => n.id === workers[5])).length;
      expect(showing).toBe(all.length - 2); // all but the other tree's two sessions
      expect(h.ctx.hierarchies.stats.viewsReused - stats.viewsReused).toBe(showing);
      expect(h.ctx.hierarchies.stats.viewsRecomputed - stats.viewsRecomputed).toBe(0);
      expect(h.ctx.hierarchies.stats.walkQueries - stats.walkQueries).toBe(0);
      await expectFresh(h, watch.latest);

      // an uncle edge: every view that read either end is walked again, all from one load
      stats = { ...h.ctx.hierarchies.stats };
      await writeUncleEdge(h, otherWorker, routers[1]!, 'declared');
      await h.ctx.hierarchies.settle();
      const walkQueries = h.ctx.hierarchies.stats.walkQueries - stats.walkQueries;
      const recomputed = h.ctx.hierarchies.stats.viewsRecomputed - stats.viewsRecomputed;
      expect(h.ctx.hierarchies.stats.viewsReused - stats.viewsReused).toBe(0);
      expect(recomputed).toBe(all.length); // the edge joins the two trees: every view read one of its ends
      expect(walkQueries).toBeGreaterThan(0);
      expect(walkQueries).toBeLessThanOrEqual(2 * oneWalk);
      expect(watch.latest.get(routers[1]!)!.roots).toContain(other);
      await expectFresh(h, watch.latest);
    } finally {
      watch.close();
    }
  });

  it('a viewer of every session of one lineage: an edge change inside it walks one view and tells the others from it, each equal to a fresh hierarchyOf', async () => {
    const h = t();
    const { trigger, routers, workers } = await lineage(h, 'one lineage');
    const all = [trigger, ...routers, ...workers];
    const watch = await watchAll(h, all);
    const { token } = await h.human(uniqueKey('admin'), { admin: true });
    try {
      const edgeChange = async (change: () => Promise<unknown>, expectWalks: (walked: number, told: number) => void) => {
        const stats = { ...h.ctx.hierarchies.stats };
        await change();
        await h.ctx.hierarchies.settle();
        expectWalks(h.ctx.hierarchies.stats.viewsRecomputed - stats.viewsRecomputed, h.ctx.hierarchies.stats.viewsDerived - stats.viewsDerived);
        await expectFresh(h, watch.latest);
      };
      const oneWalk = (walked: number, told: number) => {
        expect(walked).toBe(1);
        expect(told).toBe(all.length - 1);
      };
      // an uncle edge from another router's branch, and its removal: the lineage stays closed
      await edgeChange(() => writeUncleEdge(h, routers[0]!, workers[5]!, 'declared'), oneWalk);
      expect(
        watch.latest
          .get(workers[5]!)!
          .nodes.find((n) => n.id === workers[5])!
          .alsoSenior.map((s) => s.id),
      ).toEqual([routers[0]]);
      await edgeChange(() => removeUncleEdgeRow(h, routers[0]!, workers[5]!), oneWalk);
      // a parent correction inside the lineage
      await edgeChange(() => h.request('PATCH', `/api/v1/sessions/${workers[7]}`, { token, body: { parent_session_id: routers[0] } }), oneWalk);
      expect(watch.latest.get(trigger)!.nodes.find((n) => n.id === workers[7])!.renderParentId).toBe(routers[0]);
      // an uncle from outside the lineage gives it a second root: no longer closed, so every view is walked
      const outsider = await spawn(h, null, { agent_root: 'router', title: 'outside' });
      await h.ctx.hierarchies.settle();
      await edgeChange(
        () => writeUncleEdge(h, outsider, workers[2]!, 'declared'),
        (walked, told) => {
          expect(told).toBe(0);
          expect(walked).toBeGreaterThanOrEqual(all.length);
        },
      );
      // removed again, the lineage is closed once more: one walk
      await edgeChange(() => removeUncleEdgeRow(h, outsider, workers[2]!), oneWalk);
    } finally {
      watch.close();
    }
  });

  it('any interleaving of title, status, spawn, uncle-edge and parent changes, settled or not, leaves every view equal to a fresh hierarchyOf', async () => {
    const { h, all } = await fleet();
    const { token } = await h.human(uniqueKey('admin'), { admin: true });
    const nodes = [...all];
    const watch = await watchAll(h, nodes);
    let seed = 20261202;
    const pick = <T>(xs: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return xs[Math.floor((seed / 2147483648) * xs.length)]!; // the high bits: an LCG's low bits cycle
    };
    const uncles: [number, number][] = [];
    const counts = { reused: h.ctx.hierarchies.stats.viewsReused, walked: h.ctx.hierarchies.stats.viewsRecomputed };
    try {
      for (let step = 0; step < 30; step++) {
        // one to three writes before the refresh settles: rows-only and edge changes share batches
        const writes = pick([1, 1, 2, 3]);
        for (let k = 0; k < writes; k++) {
          const op = pick(['title', 'title', 'title', 'stop', 'spawn', 'uncle', 'unlink', 'parent']);
          const x = pick(nodes);
          if (op === 'title') await h.request('PATCH', `/api/v1/sessions/${x}`, { token: h.fleetKey, body: { title: `step ${step}.${k}` } });
          else if (op === 'stop') await h.request('POST', `/api/v1/sessions/${x}/stop`, { token: h.fleetKey, body: {} });
          else if (op === 'spawn') {
            const child = await spawn(h, x, { agent_root: 'helper' });
            nodes.push(child);
            const sub = await h.ctx.hierarchies.subscribe(child, admin, (u) => watch.latest.set(u.viewerId, u.hierarchy));
            watch.latest.set(child, sub.initial);
          } else if (op === 'uncle') {
            const senior = pick(nodes.filter((n) => n < x));
            if (senior !== undefined && !uncles.some(([s, j]) => s === senior && j === x)) {
              await writeUncleEdge(h, senior, x, 'declared');
              uncles.push([senior, x]);
            }
          } else if (op === 'unlink' && uncles.length > 0) {
            const [senior, junior] = uncles.splice(uncles.indexOf(pick(uncles)), 1)[0]!;
            await removeUncleEdgeRow(h, senior, junior);
          } else if (op === 'parent') {
            const parent = pick(nodes.filter((n) => n < x));
            if (parent !== undefined) await h.request('PATCH', `/api/v1/sessions/${x}`, { token, body: { parent_session_id: parent } });
          }
        }
        await h.ctx.hierarchies.settle();
        await expectFresh(h, watch.latest);
      }
      // both paths ran: views rebuilt from their last walk and views walked again
      expect(h.ctx.hierarchies.stats.viewsReused).toBeGreaterThan(counts.reused);
      expect(h.ctx.hierarchies.stats.viewsRecomputed).toBeGreaterThan(counts.walked);
    } finally {
      watch.close();
    }
  });

  it('refreshes after the request returns, never inside it', async () => {
    const { h, workers } = await fleet();
    const seen: HierarchyUpdate[] = [];
    const sub = await h.ctx.hierarchies.subscribe(workers[3]!, admin, (u) => seen.push(u));
    try {
      const res = await h.request('PATCH', `/api/v1/sessions/${workers[3]}`, { token: h.fleetKey, body: { title: 'after commit' } });
      expect(res.status).toBe(200);
      expect(seen).toHaveLength(0); // the response did not wait for the refresh
      await h.ctx.hierarchies.settle();
      expect(seen).toHaveLength(1);
      expect(seen[0]!.hierarchy!.nodes.find((n) => n.id === workers[3])!.title).toBe('after commit');
    } finally {
      sub.unsubscribe();
    }
  });

  it('coalesces the changes of one commit into one recomputation per viewer', async () => {
    const { h, workers, routers } = await fleet();
    await h.ctx.hierarchies.settle();
    const seen: HierarchyUpdate[] = [];
    const sub = await h.ctx.hierarchies.subscribe(routers[1]!, admin, (u) => seen.push(u));
    try {
      const before = h.ctx.hierarchies.stats.batches;
      // three session_updated events committed together (as an archive cascade does)
      await inWriteTx(h.ctx, async (w) => {
        for (const i of [0, 1, 2]) {
          await w.tx
            .updateTable('sessions')
            .set({ title: `burst ${i}` })
            .where('id', '=', workers[3 + i]!)
            .execute();
          w.touch(workers[3 + i]!);
        }
      });
      await h.ctx.hierarchies.settle();
      expect(h.ctx.hierarchies.stats.batches - before).toBe(1);
      expect(seen).toHaveLength(1);
      expect(seen[0]!.hierarchy!.nodes.filter((n) => n.title?.startsWith('burst '))).toHaveLength(3);
      expect(seen[0]!.hierarchy).toEqual(await hierarchyOf(h.ctx, admin, routers[1]!));
    } finally {
      sub.unsubscribe();
    }
  });
});

describeEachDialect(
  'live refresh per subscriber visibility (multi-user)',
  (t) => {
    it("a subscriber's view leaves out what it may not see, and equals its own fresh hierarchyOf", async () => {
      const h = t();
      const alice = await h.human(uniqueKey('alice'));
      const bob = await h.human(uniqueKey('bob'));
      const aliceCaller = {
        principal: { kind: 'human' as const, userId: alice.user.id, userKey: alice.user.key, isAdmin: false },
        credentialId: null,
        surface: 'rest' as const,
        via: 'rest' as const,
      };
      const root = await spawn(h, null, { title: 'alice root' }, alice.token);
      const child = await spawn(h, root, { title: 'alice child' }, alice.token);
      const bobs = await spawn(h, null, { title: 'bob session' }, bob.token);
      const seen: HierarchyUpdate[] = [];
      const sub = await h.ctx.hierarchies.subscribe(child, aliceCaller, (u) => seen.push(u));
      const fleetSeen: HierarchyUpdate[] = [];
      const fleetSub = await h.ctx.hierarchies.subscribe(child, admin, (u) => fleetSeen.push(u));
      try {
        await writeUncleEdge(h, bobs, child, 'declared'); // rows a writer would refuse across owners; the walk must still hide them
        await h.ctx.hierarchies.settle();
        expect(seen).toHaveLength(0); // nothing alice can see changed
        expect(fleetSeen).toHaveLength(1);
        expect(fleetSeen[0]!.hierarchy!.roots).toContain(bobs);
        const aliceView = await hierarchyOf(h.ctx, aliceCaller, child);
        expect(sub.initial).toEqual(aliceView);
        expect(aliceView.nodes.map((n) => n.id)).toEqual([root, child]);
        expect(aliceView.nodes.find((n) => n.id === child)!.hiddenSeniors).toBe(0);
        await expect(h.ctx.hierarchies.subscribe(bobs, aliceCaller, () => {})).rejects.toMatchObject({ token: 'session-not-found' });
      } finally {
        sub.unsubscribe();
        fleetSub.unsubscribe();
      }
    });
  },
  { mode: 'multi-user' },
);

describeEachDialect('live refresh follows the real graph writers', (t) => {
  it('the broadcast form names every session of the walks from each changed session, and walks the junior end of an edge only when it covers the senior', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('broadcast'), { admin: true });
    const a = await h.create(h.fleetKey, { title: 'acting router', attach: true });
    const aChild = await spawn(h, a.session.id, { title: 'acting child' });
    const b = (await h.create(h.fleetKey, { title: 'interrupted worker', attach: true })).session;
    const bChild = await spawn(h, b.id, { title: 'interrupted child' });
    await h.ctx.hierarchies.settle();
    const changes: HierarchyChange[] = [];
    const announced: unknown[] = [];
    const offChanges = h.ctx.hierarchies.onChange((c) => changes.push(c));
    const offLive = h.ctx.live.subscribe((e) => {
      if (e.type === 'lineage_changed') announced.push(e.payload.session_ids);
    });
    /** what the broadcast must name: every node of a fresh walk from each end */
    const union = async (...ids: number[]) => {
      const out = new Set<number>();
      for (const id of ids) for (const n of (await hierarchyOf(h.ctx, admin, id)).nodes) out.add(n.id);
      return [...out].sort((x, y) => x - y);
    };
    const after = async (change: () => Promise<unknown>): Promise<{ ids: number[]; walks: number; batches: number }> => {
      const before = { walks: walkCounts.total, batches: h.ctx.hierarchies.stats.batches };
      changes.length = 0;
      announced.length = 0;
      await change();
      await h.ctx.hierarchies.settle();
      expect(changes.length).toBeGreaterThan(0);
      const ids = [...new Set(changes.flatMap((c) => c.sessionIds))].sort((x, y) => x - y);
      return { ids, walks: walkCounts.total - before.walks, batches: h.ctx.hierarchies.stats.batches - before.batches };
    };
    try {
      // the real writers: an uncle edge a → b written by a follow-up, then removed; each
      // announces the junior end first, and the broadcast names both ends' hierarchies
      const linked = await after(() => h.request('POST', `/api/v1/sessions/${b.id}/follow_up`, { token: a.session_token, body: { content: 'look here' } }));
      expect(announced).toEqual([[b.id, a.session.id]]);
      expect(linked.ids).toEqual(await union(b.id, a.session.id));
      expect(linked.ids).toEqual(expect.arrayContaining([a.session.id, aChild, b.id, bChild]));
      const removed = await after(() => h.request('DELETE', `/api/v1/sessions/${b.id}/uncle_links/${a.session.id}`, { token }));
      expect(announced).toEqual([[b.id, a.session.id]]);
      expect(removed.ids).toEqual(await union(b.id, a.session.id));
      // a parent correction: the child, its old parent and its new one
      const late = (await h.create(h.fleetKey, { title: 'late child' })).session;
      await h.ctx.hierarchies.settle();
      const corrected = await after(() => h.request('PATCH', `/api/v1/sessions/${late.id}`, { token, body: { parent_session_id: aChild } }));
      expect(corrected.ids).toEqual(await union(late.id, aChild));
      const moved = await after(() => h.request('PATCH', `/api/v1/sessions/${late.id}`, { token, body: { parent_session_id: bChild } }));
      expect(announced).toEqual([[late.id, aChild, bChild]]);
      expect(moved.ids).toEqual(await union(late.id, aChild, bChild));

      // the walks, one edge event each: b's walk climbs to a, so it covers a's walk
      const edge = await after(() => writeUncleEdge(h, a.session.id, b.id));
      expect(edge.ids).toEqual(await union(b.id, a.session.id));
      expect(edge).toMatchObject({ walks: 1, batches: 1 });
      // apart again, neither end's walk holds the other: both are walked
      const apart = await after(() => removeUncleEdgeRow(h, a.session.id, b.id));
      expect(apart.ids).toEqual(await union(b.id, a.session.id));
      expect(apart).toMatchObject({ walks: 2, batches: 1 });
      // a spawn: the child's walk covers its parent's
      let child = 0;
      const spawned = await after(async () => (child = await spawn(h, bChild, { title: 'grandchild' })));
      expect(spawned.ids).toEqual(await union(child, bChild));
      expect(spawned.walks).toBe(spawned.batches);
    } finally {
      offChanges();
      offLive();
    }
  });

  it('a follow-up that writes an uncle edge, its removal and a parent correction each refresh the open views', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('refresh'), { admin: true });
    const a = await h.create(h.fleetKey, { title: 'acting router', attach: true });
    const b = (await h.create(h.fleetKey, { title: 'redirected worker', attach: true })).session;
    const c = (await h.create(h.fleetKey, { title: 'new parent' })).session;
    await h.ctx.hierarchies.settle();
    const seen: HierarchyUpdate[] = [];
    const sub = await h.ctx.hierarchies.subscribe(b.id, admin, (u) => seen.push(u));
    try {
      const r = await h.request('POST', `/api/v1/sessions/${b.id}/follow_up`, { token: a.session_token, body: { content: 'look here' } });
      expect(r.body.uncle_edge.outcome).toBe('written');
      await h.ctx.hierarchies.settle();
      expect(seen.at(-1)!.hierarchy!.nodes.map((n) => n.id)).toContain(a.session.id);
      expect(seen.at(-1)!.hierarchy).toEqual(await hierarchyOf(h.ctx, admin, b.id));
      const removed = await h.request('DELETE', `/api/v1/sessions/${b.id}/uncle_links/${a.session.id}`, { token });
      expect(removed.status).toBe(204);
      await h.ctx.hierarchies.settle();
      expect(seen.at(-1)!.hierarchy!.nodes.map((n) => n.id)).not.toContain(a.session.id);
      const corrected = await h.request('PATCH', `/api/v1/sessions/${b.id}`, { token, body: { parent_session_id: c.id } });
      expect(corrected.status).toBe(409); // not older: b was created before c
      const older = (await h.create(h.fleetKey, { title: 'late child' })).session;
      await h.request('PATCH', `/api/v1/sessions/${older.id}`, { token, body: { parent_session_id: b.id } });
      await h.ctx.hierarchies.settle();
      expect(seen.at(-1)!.hierarchy!.nodes.map((n) => n.id)).toContain(older.id);
      expect(seen.at(-1)!.hierarchy).toEqual(await hierarchyOf(h.ctx, admin, b.id));
    } finally {
      sub.unsubscribe();
    }
  });
});
