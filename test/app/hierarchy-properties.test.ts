import fc from 'fast-check';
import { expect, it } from 'vitest';
import { walkSession } from '../../src/app/lineage/hierarchy.js';
import { LineageLoader, runWalks } from '../../src/app/lineage/walk-driver.js';
import { hierarchiesFromOutcomes } from '../../src/app/lineage/hierarchy.js';
import { walkHierarchy } from '../../src/core/hierarchy-walk.js';
import type { OwnerFilter, WalkEdge } from '../../src/core/hierarchy-types.js';
import { loadHierarchyRows } from '../../src/store/lineage-repo.js';
import { findSessionById } from '../../src/store/sessions-repo.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { insertUncle } from '../helpers/lineage.js';
import { checkHierarchy, randomGraph, walkInMemory, type RandomGraph } from '../helpers/hierarchy-check.js';
import type { Row } from '../helpers/hierarchy-fixtures.js';

describeEachDialect('hierarchy walk properties on the store', (t) => {
  it('the store walk equals the in-memory walk and the reference, on random graphs with legacy keys, owners and cycles', async () => {
    const h = t();
    const users = [(await h.human(uniqueKey('owner'))).user, (await h.human(uniqueKey('owner'))).user];
    await fc.assert(
      fc.asyncProperty(
        randomGraph({ maxSessions: 18, withOwners: true }),
        fc.array(fc.boolean(), { minLength: 18, maxLength: 18 }),
        fc.integer({ min: 1, max: 6 }),
        async (g, legacy, juniorPage) => {
          // realize the graph: spawns through REST (some by the legacy key), uncle rows directly
          const map = new Map<number, number>();
          const uidOf = new Map<number, string>();
          for (const [i, r] of g.rows.entries()) {
            const parent = r.parentSessionId === null ? null : map.get(r.parentSessionId)!;
            const owner = r.ownerUserId === null ? undefined : users[r.ownerUserId - 1]!.key;
            const byKey = parent !== null && legacy[i]!;
            const body: Record<string, unknown> = { title: r.title, ...(owner ? { owner } : {}) };
            if (parent !== null && !byKey) body.parent_session_id = parent;
            if (byKey) body.custom_metadata = { router_session_id: i % 2 === 0 ? String(parent) : uidOf.get(parent)! };
            const created = await h.create(h.fleetKey, body);
            expect(created.session.lineage_parent_id).toBe(parent);
            map.set(r.id, created.session.id);
            uidOf.set(created.session.id, created.session.uid);
          }
          for (const e of g.edges.filter((e) => e.kind === 'uncle')) await insertUncle(h, map.get(e.seniorId)!, map.get(e.juniorId)!, e.basis ?? 'declared');
          const userIdOf = (o: number | null) => (o === null ? null : users[o - 1]!.id);
          const rows = (await loadHierarchyRows(h.store.kysely, h.store, [...map.values()])) as Row[];
          // a spawned session inherits its parent's owner, so the stored owners can differ from the
          // generated ones; the caller can always see the session it asks about (else it is a 404)
          const current = map.get(g.current)!;
          const currentOwner = rows.find((r) => r.id === current)!.ownerUserId;
          const owners: OwnerFilter = g.owners === 'all' ? 'all' : [...new Set([...g.owners.map(userIdOf), currentOwner])];
          const mapped: RandomGraph = {
            rows,
            edges: g.edges.map((e): WalkEdge => ({ ...e, seniorId: map.get(e.seniorId)!, juniorId: map.get(e.juniorId)! })),
            current,
            owners,
            bounds: g.bounds,
          };
          const session = (await findSessionById(h.store.kysely, h.store, mapped.current))!;
          const { hierarchy } = await walkSession(h.ctx, session, mapped.owners, mapped.bounds);
          const ownerKey = new Map(users.map((u) => [u.id, u.key]));
          const inMemory = walkInMemory(mapped);
          expect(hierarchy).toEqual({
            ...inMemory,
            nodes: inMemory.nodes.map((n) => ({ ...n, owner: ownerKey.get(rows.find((r) => r.id === n.id)!.ownerUserId!) ?? null })),
          });
          checkHierarchy(mapped, hierarchy);

          // the refresh fan-out: every session's view through one loader equals its own store walk
          const visibleIds = rows.filter((r) => mapped.owners === 'all' || mapped.owners.includes(r.ownerUserId)).map((r) => r.id);
          // both ways the walks can share it: in lockstep, and each running on while the loader holds what it reads
          const fanOut = async (oneAtATime: boolean) => {
            const loader = new LineageLoader(h.store.kysely, h.store, juniorPage);
            const outcomes = await runWalks(
              visibleIds.map((id) => walkHierarchy(rows.find((r) => r.id === id)! as never, mapped.owners, mapped.bounds)),
              (requests) => loader.fulfill(requests),
              oneAtATime ? (request) => loader.answerLoaded(request) : undefined,
            );
            return hierarchiesFromOutcomes(h.store.kysely, outcomes, mapped.bounds);
          };
          const [lockstep, oneAtATime] = [await fanOut(false), await fanOut(true)];
          for (const [i, id] of visibleIds.entries()) {
            const fresh = await walkSession(h.ctx, (await findSessionById(h.store.kysely, h.store, id))!, mapped.owners, mapped.bounds);
            expect(lockstep[i]).toEqual(fresh.hierarchy);
            expect(oneAtATime[i]).toEqual(fresh.hierarchy);
          }
        },
      ),
      { numRuns: Number(process.env.WARRANT_PROPERTY_RUNS ?? 15) },
    );
  });
});
