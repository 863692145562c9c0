import { expect, it } from 'vitest';
import { hierarchyOf } from '../../src/app/lineage/hierarchy.js';
import { systemCaller } from '../../src/app/caller.js';
import { renderHierarchyOutline } from '../../src/render/hierarchy-outline.js';
import type { Hierarchy } from '../../src/core/hierarchy-types.js';
import { describeEachDialect } from '../helpers/harness.js';
import { insertUncle, spawn, withoutLegacyKeyExtraction } from '../helpers/lineage.js';

const admin = systemCaller('cli');

function ids(h: Hierarchy): number[] {
  return h.nodes.map((n) => n.id);
}

describeEachDialect('hierarchyOf on the store', (t) => {
  it("draws each of eight routers' one child directly under its own router", async () => {
    const h = t();
    const trigger = await spawn(h, null, { agent_root: 'trigger' });
    const routers: number[] = [];
    for (let i = 0; i < 8; i++) routers.push(await spawn(h, trigger, { agent_root: 'router' }));
    const children: number[] = [];
    for (const r of routers) children.push(await spawn(h, r, { agent_root: 'worker' }));
    const tree = await hierarchyOf(h.ctx, admin, children[5]!);
    expect(ids(tree)).toEqual([trigger, ...routers.flatMap((r, i) => [r, children[i]!])]);
    for (const [i, c] of children.entries()) {
      const node = tree.nodes.find((n) => n.id === c)!;
      expect(node.renderParentId).toBe(routers[i]);
      expect(node.placement).toBe('spawn');
      expect(node.spawnEdge).toBe(true);
      expect(node.depth).toBe(2);
    }
    const lines = renderHierarchyOutline(tree).split('\n');
    for (const [i, c] of children.entries()) {
      const at = lines.findIndex((l) => l.startsWith(`    - #${c} `));
      expect(lines[at - 1]).toMatch(new RegExp(`^  - #${routers[i]} `));
    }
    expect(tree.truncated).toBe(false);
  });

  it('renders the docs/design/lineage.md example: a junior reached through its uncle first says so', async () => {
    const h = t();
    const a = await spawn(h, null, { agent_root: 'router', title: 'Triage the flaky deploy' });
    const b = await spawn(h, a, { agent_root: 'worker', title: 'Read the CI logs' });
    const c = await spawn(h, null, { agent_root: 'router', title: 'Ship the hotfix' });
    const d = await spawn(h, b, { agent_root: 'worker', title: 'Patch the retry loop' });
    await insertUncle(h, c, d, 'authenticated');
    const tree = await hierarchyOf(h.ctx, admin, d);
    expect(tree.originId).toBe(a);
    expect(tree.roots).toEqual([a, c]);
    expect(renderHierarchyOutline(tree)).toBe(
      [
        `- #${a} [router] {api · priority} Triage the flaky deploy`,
        `  - #${b} [worker] {api · priority} Read the CI logs`,
        `- #${c} [router] {api · priority} Ship the hotfix`,
        `  - #${d} [worker] {api · priority} Patch the retry loop (also senior: #${c}) (shown under uncle #${c}, not its spawn parent #${b}) ← this session`,
      ].join('\n'),
    );
    const node = tree.nodes.find((n) => n.id === d)!;
    expect(node).toMatchObject({ placement: 'uncle', spawnEdge: false, renderParentId: c, alsoSenior: [{ id: c, basis: 'authenticated' }], hiddenSeniors: 0 });
    expect(node.drawnUnder).toEqual({ reason: 'uncle', uncleId: c, spawnParent: { kind: 'in-tree', id: b } });

    // From #b the uncle is outside the tree: its edge is counted, not drawn.
    const fromB = await hierarchyOf(h.ctx, admin, b);
    expect(ids(fromB)).toEqual([a, b, d]);
    expect(fromB.nodes.find((n) => n.id === d)).toMatchObject({ placement: 'spawn', alsoSenior: [], hiddenSeniors: 1 });
    expect(renderHierarchyOutline(fromB)).toContain(`#${d} [worker] {api · priority} Patch the retry loop (1 more senior not shown)`);
  });

  it('marks a declared uncle and says when the spawn parent is not in the tree', async () => {
    const h = t();
    const top = await spawn(h, null, { title: 'top' });
    const other = await spawn(h, null, { title: 'other tree' });
    const otherChild = await spawn(h, other, { title: 'other child' });
    const junior = await spawn(h, otherChild, { title: 'junior' });
    await insertUncle(h, top, junior, 'declared');
    // seen from #top's side only: the junior hangs under its uncle, its spawn parent is elsewhere
    const tree = await hierarchyOf(h.ctx, admin, top);
    expect(ids(tree)).toEqual([top, junior]);
    const line = renderHierarchyOutline(tree).split('\n')[1]!;
    expect(line).toBe(
      `  - #${junior} {api · priority} junior (also senior, declared: #${top}) (shown under uncle #${top}; its spawn parent is not in this tree)`,
    );
  });

  it('truncates a router with 200 children at the node cap and still shows the requested session', async () => {
    const h = t();
    const router = await spawn(h, null, { agent_root: 'router' });
    const kids: number[] = [];
    for (let i = 0; i < 200; i++) kids.push(await spawn(h, router, { agent_root: 'worker' }));
    const last = kids[199]!;
    const tree = await hierarchyOf(h.ctx, admin, last);
    expect(tree.truncated).toBe(true);
    expect(tree.nodes).toHaveLength(150);
    expect(ids(tree)).toContain(last);
    // the upward nodes first, then the lowest ids: router, last, and the 148 lowest children
    expect(new Set(ids(tree))).toEqual(new Set([router, last, ...kids.slice(0, 148)]));
    expect(tree.nodes.find((n) => n.id === last)).toMatchObject({ placement: 'spawn', renderParentId: router, isCurrent: true });
    expect(renderHierarchyOutline(tree)).toMatch(/Showing at most 150 sessions, 8 levels from the highest ancestor reached\. This tree is larger\./);

    const fromRouter = await hierarchyOf(h.ctx, admin, router);
    expect(fromRouter.truncated).toBe(true);
    expect(ids(fromRouter)).toEqual([router, ...kids.slice(0, 149)]);
  });

  it('truncates a chain 12 deep at 8 levels, up and down, and keeps the requested session', async () => {
    const h = t();
    const chain: number[] = [];
    for (let i = 0; i < 13; i++) chain.push(await spawn(h, i === 0 ? null : chain[i - 1]!));
    const bottom = await hierarchyOf(h.ctx, admin, chain[12]!);
    // 8 levels up: the highest reached still has a parent, so the tree is cut above
    expect(ids(bottom)).toEqual(chain.slice(4));
    expect(bottom.roots).toEqual([chain[4]]);
    expect(bottom.originId).toBe(chain[4]);
    expect(bottom.truncated).toBe(true);
    expect(bottom.nodes.at(-1)).toMatchObject({ id: chain[12], depth: 8, isCurrent: true });

    const top = await hierarchyOf(h.ctx, admin, chain[0]!);
    expect(ids(top)).toEqual(chain.slice(0, 9));
    expect(top.truncated).toBe(true);

    const middle = await hierarchyOf(h.ctx, admin, chain[6]!);
    expect(ids(middle)).toEqual(chain.slice(0, 9));
    expect(middle.truncated).toBe(true);

    const fits = await hierarchyOf(h.ctx, admin, chain[4]!);
    expect(fits.truncated).toBe(true); // the root is the true top but 12 levels hang below it
  });

  it('a tree that fits exactly is complete', async () => {
    const h = t();
    const chain: number[] = [];
    for (let i = 0; i < 9; i++) chain.push(await spawn(h, i === 0 ? null : chain[i - 1]!));
    const tree = await hierarchyOf(h.ctx, admin, chain[8]!);
    expect(ids(tree)).toEqual(chain);
    expect(tree.truncated).toBe(false);
    expect(renderHierarchyOutline(tree)).not.toMatch(/Showing at most/);
  });

  it('appends the requested session with ceiling placement when its own line is cut', async () => {
    const h = t();
    // 160 sessions queued the requested one: its upward set alone is over the cap
    const seniors: number[] = [];
    for (let i = 0; i < 160; i++) seniors.push(await spawn(h, null, { title: `senior ${i}` }));
    const s = await spawn(h, null, { title: 'the one asked about' });
    for (const senior of seniors) await insertUncle(h, senior, s, 'declared');
    const tree = await hierarchyOf(h.ctx, admin, s);
    expect(tree.truncated).toBe(true);
    expect(tree.nodes).toHaveLength(151);
    const last = tree.nodes.at(-1)!;
    // S is its own origin, so a root (depth 0) even under 160 uncles; the cap still cuts its line
    expect(last).toMatchObject({ id: s, placement: 'ceiling', renderParentId: null, depth: 0, isCurrent: true, spawnEdge: false });
    expect(last.alsoSenior).toHaveLength(150);
    expect(last.hiddenSeniors).toBe(10);
    const lastLine = renderHierarchyOutline(tree)
      .split('\n')
      .find((l) => l.includes('← this session'))!;
    expect(lastLine).toMatch(new RegExp(`^- #${s} .*\\(10 more seniors not shown\\) \\(placed by the node ceiling, not under its parent\\) ← this session$`));
  });

  it('a router under a chain of nine uncle edges keeps its three levels of workers in its own hierarchy', async () => {
    const h = t();
    // nine sessions, each interrupting the next (uncle edges), the last one interrupting the router
    const chain: number[] = [];
    for (let i = 0; i < 9; i++) chain.push(await spawn(h, null, { title: `interrupter ${i}` }));
    const router = await spawn(h, null, { title: 'router' });
    for (let i = 0; i < 8; i++) await insertUncle(h, chain[i]!, chain[i + 1]!, 'declared');
    await insertUncle(h, chain[8]!, router, 'declared');
    const workers: number[] = [];
    let level = [router];
    for (let d = 0; d < 3; d++) {
      const next: number[] = [];
      for (const p of level) for (let k = 0; k < 2; k++) next.push(await spawn(h, p, { title: `worker ${d}.${k}` }));
      workers.push(...next);
      level = next;
    }
    for (const asked of [router, workers.at(-1)!]) {
      const tree = await hierarchyOf(h.ctx, admin, asked);
      expect(tree.originId).toBe(router);
      expect(tree.roots[0]).toBe(router);
      const byId = new Map(tree.nodes.map((n) => [n.id, n]));
      expect(byId.get(router)).toMatchObject({ depth: 0 });
      for (const w of workers) expect(byId.get(w), `worker #${w} asked from #${asked}`).toMatchObject({ spawnEdge: true });
    }
  });

  it('terminates on cycles inserted directly and still shows the requested session', async () => {
    const h = t();
    const a = await spawn(h, null);
    const b = await spawn(h, a);
    const c = await spawn(h, b);
    await insertUncle(h, c, a); // a → b → c → a
    await insertUncle(h, b, b); // and a self-loop
    for (const s of [a, b, c]) {
      const tree = await hierarchyOf(h.ctx, admin, s);
      expect(new Set(ids(tree))).toEqual(new Set([a, b, c]));
      expect(ids(tree)).toContain(s);
      expect(tree.roots).toHaveLength(1);
    }
  });

  it('asks for seniors only where there can be some: a top with no uncle costs no read', async () => {
    const h = t();
    const top = await spawn(h, null);
    const child = await spawn(h, top);
    const seniorReads = async () => {
      h.store.queryLog.start();
      const tree = await hierarchyOf(h.ctx, admin, child);
      const reads = h.store.queryLog.stop().filter((q) => /'uncle' as edge_kind, u\.session_id as edge_via/.test(q)).length;
      return { tree, reads };
    };
    const plain = await seniorReads();
    expect(plain.reads).toBe(1); // the child's; its parent names no parent and has no uncle
    expect(plain.tree.truncated).toBe(false);
    const other = await spawn(h, null);
    await insertUncle(h, other, top);
    const withUncle = await seniorReads();
    expect(withUncle.reads).toBe(2); // the child's and its parent's (which has an uncle); the uncle is a true top
    // the origin is always a root, listed first; the uncle above it is a root beside it
    expect(withUncle.tree.roots).toEqual([top, other]);
  });

  it('reads the projection only: ≤ 25 queries, never transcripts, prompts or the metadata blob', async () => {
    const h = t();
    // a deep and wide lineage with transcripts and prompts on every node
    const chain: number[] = [];
    for (let i = 0; i < 12; i++)
      chain.push(await spawn(h, i === 0 ? null : chain[i - 1]!, { prompt: 'p'.repeat(1000), custom_metadata: { note: 'x'.repeat(1000) } }));
    for (const c of chain.slice(0, 6)) for (let k = 0; k < 4; k++) await spawn(h, c, { custom_metadata: { router_session_id: String(c) } });
    const side = await spawn(h, null);
    await insertUncle(h, side, chain[7]!, 'declared');
    for (const id of chain) {
      const res = await h.request('POST', `/api/v1/sessions/${id}/transcript`, {
        token: h.fleetKey,
        body: { provider: 'claude-code', conversation_id: `c-${id}`, offset: 0, lines: [JSON.stringify({ text: 't'.repeat(5000) })] },
      });
      expect(res.status).toBe(200);
    }
    for (const target of [chain[11]!, chain[5]!, chain[0]!]) {
      h.store.queryLog.start();
      const tree = await hierarchyOf(h.ctx, admin, target);
      // the live hub's own read (woken by earlier writes) may land in the window: not the walk's
      const queries = h.store.queryLog.stop().filter((q) => !/from "live_events"/.test(q));
      expect(tree.nodes.length).toBeGreaterThan(8);
      expect(queries.length).toBeGreaterThan(0);
      expect(queries.length).toBeLessThanOrEqual(25);
      for (const q of queries) {
        expect(q).not.toMatch(/session_transcripts|session_prompts/);
        expect(q).not.toMatch(/select \*|"s"\.\*|"c"\.\*|"p"\.\*/i);
        expect(withoutLegacyKeyExtraction(q)).not.toMatch(/custom_metadata/);
      }
    }
  });
});
