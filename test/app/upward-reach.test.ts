import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { ancestryByClosures, CLOSURE_ROUNDS_ALLOWED, LEGACY_ROWS_ALLOWED, reachesFromAbove } from '../../src/app/lineage/upward-reach.js';
import { searchUpward, type SearchResult } from '../../src/core/upward-search.js';
import { seniorIdsOf, upwardClosureOf } from '../../src/store/reachability-repo.js';

/**
 * docs/concepts.md: a reachability search is breadth-first over seniors, one batch per level,
 * within a budget of visited sessions. On PostgreSQL `reachesFromAbove` first asks for the whole
 * ancestry in one recursive statement; every answer must be the level-by-level search's own,
 * for column parents, legacy keys (to older, younger and missing sessions, by id and by uid),
 * uncles, cycles among uncles, spawn-only searches and budgets small enough to run out.
 */
describeEachDialect('reachability: reachesFromAbove answers as the level-by-level search does', (t, dialect) => {
  it('on random graphs, for random starts, targets, budgets and spawn-only searches', async () => {
    const h = t();
    const db = h.store.kysely;
    const n = 40;
    const sessions: { id: number; uid: string }[] = [];
    for (let i = 0; i < n; i++) sessions.push((await h.create(h.fleetKey, { title: `s${i}` })).session);

    const graph = fc.sample(
      fc.record({
        parents: fc.array(
          fc.record({
            kind: fc.constantFrom('none', 'column', 'column', 'column', 'column', 'column', 'column-younger', 'legacy-id', 'legacy-uid', 'legacy-missing'),
            pick: fc.nat(),
          }),
          { minLength: n, maxLength: n },
        ),
        uncles: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { minLength: 30, maxLength: 60 }),
      }),
      { numRuns: 1, seed: 20261204 },
    )[0]!;
    const now = new Date().toISOString();
    for (let i = 0; i < n; i++) {
      const { kind, pick } = graph.parents[i]!;
      const s = sessions[i]!;
      // column parents are older (the rule; a younger one, as stored data may hold, is no parent);
      // a legacy key may name anyone, or nobody
      const older = i > 0 ? sessions[pick % i]! : null;
      const younger = i < n - 1 ? sessions[i + 1 + (pick % (n - i - 1))]! : null;
      const anyone = sessions[pick % n]!;
      const set =
        kind === 'column' && older
          ? { parent_session_id: older.id, parent_basis: 'declared' as const }
          : kind === 'column-younger' && younger
            ? { parent_session_id: younger.id, parent_basis: 'declared' as const }
            : kind === 'legacy-id'
              ? { custom_metadata: JSON.stringify({ router_session_id: `#${anyone.id}` }), parent_basis: 'legacy' as const }
              : kind === 'legacy-uid'
                ? { custom_metadata: JSON.stringify({ router_session_id: anyone.uid }), parent_basis: 'legacy' as const }
                : kind === 'legacy-missing'
                  ? { custom_metadata: JSON.stringify({ router_session_id: '987654321' }), parent_basis: 'legacy' as const }
                  : null;
      if (set) await db.updateTable('sessions').set(set).where('id', '=', s.id).execute();
    }
    const pairs = new Set<string>();
    for (const [a, b] of graph.uncles) if (a !== b) pairs.add(`${sessions[a]!.id}:${sessions[b]!.id}`);
    await db
      .insertInto('session_uncles')
      .values(
        [...pairs].map((p) => {
          const [session_id, uncle_session_id] = p.split(':').map(Number) as [number, number];
          return { session_id, uncle_session_id, source: 'rest.follow_up', basis: 'declared', recorded_by_actor_id: null, created_at: now };
        }),
      )
      .execute();

    /** The search as docs/concepts.md states it: level by level over seniorIdsOf. */
    const levelByLevel = async (fromId: number, targetId: number, spawnOnly: boolean, budget: number): Promise<SearchResult> => {
      if (spawnOnly && targetId > fromId) return 'not-found';
      const { result } = await searchUpward<{ id: number }>({
        from: [{ id: fromId }],
        target: targetId,
        seniorsOf: async (level) =>
          (
            await seniorIdsOf(
              db,
              h.store,
              level.map((l) => l.id),
              { spawnOnly },
            )
          ).map((id) => ({ id })),
        budget,
      });
      return result;
    };

    const seen = new Map<string, number>();
    const path = { closure: 0, levels: 0, pastLegacy: 0 };
    await fc.assert(
      fc.asyncProperty(fc.nat(n - 1), fc.nat(n - 1), fc.boolean(), fc.constantFrom(2, 4, 8, 1000), async (f, g, spawnOnly, budget) => {
        const from = sessions[f]!;
        const target = sessions[g]!;
        const expected = await levelByLevel(from.id, target.id, spawnOnly, budget);
        const got = await reachesFromAbove(db, h.store, from, target.id, { spawnOnly, budget });
        expect(got, `from #${from.id} to #${target.id}, spawnOnly ${spawnOnly}, budget ${budget}`).toBe(expected);
        seen.set(expected, (seen.get(expected) ?? 0) + 1);
        if (dialect === 'postgres' && f !== g) {
          const ancestry = await ancestryByClosures(db, h.store, from.id, { spawnOnly, budget });
          path[ancestry ? 'closure' : 'levels']++;
          // the closures decided past a legacy key: a further closure found more than the first
          if (ancestry && ancestry.size > (await upwardClosureOf(db, h.store, [from.id], { spawnOnly, limit: budget + 1 + LEGACY_ROWS_ALLOWED }))!.ids.length)
            path.pastLegacy++;
        }
      }),
      { numRuns: 300, seed: 4 },
    );
    // the comparison covered every answer and, on PostgreSQL, both paths many times
    expect([...seen.keys()].sort()).toEqual(['exhausted', 'found', 'not-found']);
    if (dialect === 'postgres') expect(Math.min(path.closure, path.levels, path.pastLegacy), JSON.stringify(path)).toBeGreaterThan(20);
  }, 120_000);

  it("a legacy key on the way: the answer is still the legacy parent's (on PostgreSQL the closure returns its junior, resolved in JS, and a second closure goes on)", async () => {
    const h = t();
    const db = h.store.kysely;
    const root = (await h.create(h.fleetKey, { title: 'root' })).session;
    const mid = (await h.create(h.fleetKey, { title: 'mid', custom_metadata: { router_session_id: `#${root.id}` } })).session;
    const leaf = (await h.create(h.fleetKey, { title: 'leaf', parent_session_id: mid.id })).session;
    expect(mid.parent_basis).toBe('legacy');
    expect(await reachesFromAbove(db, h.store, leaf, root.id, { spawnOnly: true })).toBe('found');
    expect(await reachesFromAbove(db, h.store, leaf, root.id, { spawnOnly: true, budget: 1 })).toBe('exhausted');
    const closure = await upwardClosureOf(db, h.store, [leaf.id], { spawnOnly: true, limit: 10 });
    if (dialect === 'postgres') {
      expect(closure).toEqual({ ids: expect.arrayContaining([mid.id, leaf.id]), legacyJuniors: [mid.id], complete: true });
      expect(closure!.ids).toHaveLength(2);
      expect(await ancestryByClosures(db, h.store, leaf.id, { spawnOnly: true, budget: 10 })).toEqual(new Set([leaf.id, mid.id, root.id]));
      expect(await upwardClosureOf(db, h.store, [leaf.id], { spawnOnly: true, limit: 1 })).toEqual({ ids: [leaf.id], legacyJuniors: [], complete: false });
      // the legacy parent counts against the budget like any other
      expect(await ancestryByClosures(db, h.store, leaf.id, { spawnOnly: true, budget: 2 })).toBeNull();
    } else expect(closure).toBeNull(); // no LATERAL: the level-by-level search answers
  });

  it('a chain of legacy keys in series: a few are decided by closures, a longer one by the levels, with the same answers', async () => {
    const h = t();
    const db = h.store.kysely;
    // root ← l1 ← l2 ← … each naming its parent by the legacy key; every one costs a closure more
    const chain = [(await h.create(h.fleetKey, { title: 'root' })).session];
    for (let i = 1; i <= CLOSURE_ROUNDS_ALLOWED; i++)
      chain.push((await h.create(h.fleetKey, { title: `l${i}`, custom_metadata: { router_session_id: `#${chain[i - 1]!.id}` } })).session);
    const stranger = (await h.create(h.fleetKey, { title: 'stranger' })).session;
    for (const s of chain.slice(1)) expect(s.parent_basis).toBe('legacy');
    const leaf = chain.at(-1)!;
    const below = chain.at(-2)!;
    for (const spawnOnly of [false, true]) {
      expect(await reachesFromAbove(db, h.store, leaf, chain[0]!.id, { spawnOnly })).toBe('found');
      expect(await reachesFromAbove(db, h.store, below, chain[0]!.id, { spawnOnly })).toBe('found');
      expect(await reachesFromAbove(db, h.store, leaf, stranger.id, { spawnOnly })).toBe('not-found');
    }
    if (dialect === 'postgres') {
      // one legacy key fewer than the rounds allowed: the closures decide, the root included
      expect(await ancestryByClosures(db, h.store, below.id, { spawnOnly: false, budget: 100 })).toEqual(new Set(chain.slice(0, -1).map((s) => s.id)));
      // as many as the rounds allowed: one closure too many, so the levels answer (above)
      expect(await ancestryByClosures(db, h.store, leaf.id, { spawnOnly: false, budget: 100 })).toBeNull();
    }
  });

  it('an ancestry of exactly the budget that passes a legacy key is still decided whole by the closures', async () => {
    const h = t();
    const db = h.store.kysely;
    const root = (await h.create(h.fleetKey, { title: 'root' })).session;
    const mid = (await h.create(h.fleetKey, { title: 'mid', custom_metadata: { router_session_id: String(root.id) } })).session;
    const leaf = (await h.create(h.fleetKey, { title: 'leaf', parent_session_id: mid.id })).session;
    // root is above mid by its legacy key and by an uncle edge: the first closure reaches all three
    // and also returns mid as a legacy junior, one row more than the sessions
    await db
      .insertInto('session_uncles')
      .values({
        session_id: mid.id,
        uncle_session_id: root.id,
        source: 'rest.follow_up',
        basis: 'declared',
        recorded_by_actor_id: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    expect(await reachesFromAbove(db, h.store, leaf, root.id, { budget: 3 })).toBe('found');
    if (dialect === 'postgres')
      expect(await ancestryByClosures(db, h.store, leaf.id, { spawnOnly: false, budget: 3 })).toEqual(new Set([leaf.id, mid.id, root.id]));
  });

  it('an ancestry of exactly the budget is decided whole; one more session and the levels decide', async () => {
    const h = t();
    const db = h.store.kysely;
    const root = (await h.create(h.fleetKey, { title: 'root' })).session;
    const mid = (await h.create(h.fleetKey, { title: 'mid', parent_session_id: root.id })).session;
    const leaf = (await h.create(h.fleetKey, { title: 'leaf', parent_session_id: mid.id })).session;
    const stranger = (await h.create(h.fleetKey, { title: 'stranger' })).session;
    // leaf, mid and root: three sessions visited with nothing left, so never exhausted at 3
    expect(await reachesFromAbove(db, h.store, leaf, stranger.id, { budget: 3 })).toBe('not-found');
    expect(await reachesFromAbove(db, h.store, leaf, root.id, { budget: 3 })).toBe('found');
    // at 2, root is a new senior with the budget spent: no proof either way, unless it is the target
    expect(await reachesFromAbove(db, h.store, leaf, stranger.id, { budget: 2 })).toBe('exhausted');
    expect(await reachesFromAbove(db, h.store, leaf, root.id, { budget: 2 })).toBe('found');
    if (dialect === 'postgres') expect((await upwardClosureOf(db, h.store, [leaf.id], { spawnOnly: false, limit: 4 }))!.ids).toHaveLength(3);
  });
});
