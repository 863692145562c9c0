import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';

interface Node {
  id: number;
  render_parent_id: number | null;
  spawn_edge: boolean;
}

/**
 * Every spelling of the legacy key the create accepts keeps its parent on every reader: the
 * create response, the session read, the hierarchy (both directions), the outline, the
 * parent's list of children. Before one parser served them all, six spellings resolved at
 * create and were then lost by readers that re-parsed the key with their own regexes.
 */
describeEachDialect('the legacy parent key, spelled every accepted way', (t) => {
  it('each accepted spelling: create, read, hierarchy, outline and children agree on the parent', async () => {
    const h = t();
    const router = (await h.create(h.fleetKey, { title: 'legacy router' })).session;
    const bare = router.uid.replace(/-/g, '');
    const spellings: unknown[] = [
      router.id,
      String(router.id),
      `#${router.id}`,
      router.uid,
      router.uid.toUpperCase(),
      bare,
      bare.toUpperCase(),
      `uid:${router.uid}`,
      `uid:${bare.toUpperCase()}`,
    ];
    const children: number[] = [];
    for (const key of spellings) {
      const label = JSON.stringify(key);
      const created = await h.create(h.fleetKey, { title: `child via ${label}`, custom_metadata: { router_session_id: key } });
      expect(created.parent_resolution, label).toMatchObject({ resolved_id: router.id, basis: 'legacy', source: 'legacy-key' });
      expect(created.session, label).toMatchObject({ parent_basis: 'legacy', lineage_parent_id: router.id });
      const child = created.session.id as number;
      children.push(child);

      const read = await h.request<{ session: { lineage_parent_id: number }; session_hierarchy: { nodes: Node[] } }>('GET', `/api/v1/sessions/${child}`, {
        token: h.fleetKey,
      });
      expect(read.body.session.lineage_parent_id, label).toBe(router.id);
      const me = read.body.session_hierarchy.nodes.find((n) => n.id === child)!;
      expect(me, label).toMatchObject({ render_parent_id: router.id, spawn_edge: true });

      const outline = await h.request('GET', `/api/v1/sessions/${child}/hierarchy?format=markdown`, { token: h.fleetKey });
      const lines = outline.text.split('\n');
      const routerLine = lines.findIndex((l) => l.includes(`#${router.id} `));
      const childLine = lines.findIndex((l) => l.includes(`#${child} `));
      expect(routerLine, label).toBeGreaterThanOrEqual(0);
      expect(childLine, label).toBeGreaterThan(routerLine);
      const indent = (l: string) => l.length - l.trimStart().length;
      expect(indent(lines[childLine]!), label).toBeGreaterThan(indent(lines[routerLine]!));
    }
    // downward: the router's own hierarchy and its list of children hold every one
    const fromRouter = await h.request<{ nodes: Node[] }>('GET', `/api/v1/sessions/${router.id}/hierarchy`, { token: h.fleetKey });
    for (const child of children)
      expect(
        fromRouter.body.nodes.find((n) => n.id === child),
        `#${child}`,
      ).toMatchObject({ render_parent_id: router.id, spawn_edge: true });
    const listed = await h.request<{ sessions: { id: number }[] }>('GET', `/api/v1/sessions?parent=${router.id}&limit=100`, { token: h.fleetKey });
    expect(listed.body.sessions.map((s) => s.id).sort((a, b) => a - b)).toEqual([...children].sort((a, b) => a - b));
  });

  it('spellings no reader could match are refused at create (not-found), never accepted and then lost', async () => {
    const h = t();
    const router = (await h.create(h.fleetKey, { title: 'strict router' })).session;
    for (const key of [` ${router.id} `, `0${router.id}`, `UID:${router.uid}`, router.uid.replace(/[a-f]/, (c: string) => c.toUpperCase())]) {
      const created = await h.create(h.fleetKey, { custom_metadata: { router_session_id: key } });
      expect(created.parent_resolution, JSON.stringify(key)).toMatchObject({ resolved_id: null, basis: null, dropped: 'not-found', source: 'legacy-key' });
      expect(created.session).toMatchObject({ parent_basis: null, lineage_parent_id: null });
    }
  });

  it('a PATCH by an ancestor 200 levels up costs the same queries as one a level up (one recursive climb)', async () => {
    const h = t();
    const top = await h.request<{ session: { id: number }; session_token: string }>('POST', '/api/v1/sessions', {
      token: h.fleetKey,
      body: { title: 'top', attach: true },
    });
    const token = top.body.session_token;
    let parent = top.body.session.id;
    const chain: number[] = [];
    for (let i = 0; i < 200; i++) {
      // every level but one uses the column; one hop in the middle is a legacy key
      const body =
        i === 100 ? { title: `level ${i}`, custom_metadata: { router_session_id: `#${parent}` } } : { title: `level ${i}`, parent_session_id: parent };
      parent = (await h.create(h.fleetKey, body)).session.id;
      chain.push(parent);
    }
    const count = async (target: number): Promise<{ climbs: number; total: number }> => {
      h.store.queryLog.start();
      const r = await h.request('PATCH', `/api/v1/sessions/${target}`, { token, body: { title: `renamed ${target}` } });
      const queries = h.store.queryLog.stop();
      expect(r.status, `PATCH #${target}`).toBe(200);
      return { climbs: queries.filter((q) => /with recursive up/.test(q)).length, total: queries.length };
    };
    const near = await count(chain[0]!);
    const deep = await count(chain[199]!);
    expect(near.climbs).toBe(1);
    // the legacy hop resumes the climb once: a constant, not a query per level
    expect(deep.climbs).toBe(2);
    expect(deep.total).toBeLessThanOrEqual(near.total + 2);
  });
});
