import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAppContext } from '../../src/app/bootstrap.js';
import type { Caller } from '../../src/app/caller.js';
import type { AppContext } from '../../src/app/context.js';
import { hierarchyOf, walkSession } from '../../src/app/lineage/hierarchy.js';
import { getSessionDetail } from '../../src/app/sessions/session-detail.js';
import { recordUncleEdge } from '../../src/app/lineage/uncle-edges.js';
import { walkCacheStats } from '../../src/app/lineage/walk-cache.js';
import { assembleService, type Service } from '../../src/composition.js';
import { ensureActor } from '../../src/store/actors-repo.js';
import { openStore } from '../../src/store/connect.js';
import type { StoreDialect } from '../../src/store/dialect/dialect.js';
import { findSessionById } from '../../src/store/sessions-repo.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';

const FLEET: Caller = { principal: { kind: 'fleet' }, credentialId: null, surface: 'rest', via: 'rest' };

interface Node {
  ctx: AppContext;
  service: Service;
}

/** One write or read, on node 0 or 1; `a`/`b` pick sessions of the run by index. */
interface Step {
  kind: 'spawn' | 'retitle' | 'archive' | 'reparent' | 'delete' | 'uncle' | 'unlink' | 'message' | 'read';
  node: 0 | 1;
  a: number;
  b: number;
}

const step = fc.record({
  kind: fc.constantFrom('spawn', 'spawn', 'retitle', 'archive', 'reparent', 'delete', 'uncle', 'uncle', 'unlink', 'message', 'read', 'read', 'read'),
  node: fc.constantFrom(0 as const, 1 as const),
  a: fc.nat(40),
  b: fc.nat(40),
}) as fc.Arbitrary<Step>;

/**
 * docs/design/lineage.md "Cached walks": a cached read is never staler than the store. Two nodes (two
 * app contexts, each with its own cache, on one database) interleave writes of every kind the
 * walk reads with reads on both, and every read equals a fresh walk of the store at that moment.
 */
describeEachDialect('cached walks on two nodes', (t) => {
  let second: { store: StoreDialect; node: Node } | undefined;
  let admin = '';

  beforeAll(async () => {
    const h = t();
    const store = await openStore({ databaseUrl: h.database.databaseUrl, sqliteFile: h.database.sqliteFile });
    const ctx = await createAppContext(store, { logger: pino({ level: 'silent' }), serverSecret: h.ctx.serverSecret });
    second = { store, node: { ctx, service: await assembleService(store, ctx, { housekeeping: false }) } };
    admin = (await h.human(uniqueKey('admin'), { admin: true })).token;
  });
  afterAll(async () => {
    await second?.node.service.stop();
    await second?.store.destroy();
  });

  it('every read on either node equals a fresh walk, whatever was written on either node before it', async () => {
    const h = t();
    const nodes: Node[] = [{ ctx: h.ctx, service: h.service }, second!.node];
    const call = async (node: Node, method: string, path: string, token: string, body?: unknown) => {
      const res = await node.service.app.request(path, {
        method,
        headers: { host: 'localhost', authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    let reads = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: 40 }), async (steps) => {
        // each run starts a tree of its own: a root with two children
        // (attached: a session's token sends its agent messages)
        const tokens = new Map<number, string>();
        const spawn = async (node: Node, body: Record<string, unknown>): Promise<number | null> => {
          const r = await call(node, 'POST', '/api/v1/sessions', h.fleetKey, { ...body, attach: true });
          if (r.status !== 201) return null;
          tokens.set(r.body.session.id, r.body.session_token);
          return r.body.session.id;
        };
        const root = (await spawn(nodes[0]!, { title: 'root' }))!;
        const ids = [root];
        for (let i = 0; i < 2; i++) ids.push((await spawn(nodes[0]!, { title: 'child', parent_session_id: root }))!);
        const pick = (k: number): number => ids[k % ids.length]!;
        for (const s of steps) {
          const node = nodes[s.node]!;
          const a = pick(s.a);
          const b = pick(s.b);
          switch (s.kind) {
            case 'spawn': {
              const id = await spawn(node, { title: `spawn of ${a}`, parent_session_id: a });
              if (id !== null) ids.push(id);
              break;
            }
            case 'message':
              // an agent message: its first one between two sessions is an uncle edge, later ones only timeline
              await call(node, 'POST', '/api/v1/messages', tokens.get(a)!, { to: b, payload: 'status?' });
              break;
            case 'retitle':
              await call(node, 'PATCH', `/api/v1/sessions/${a}`, h.fleetKey, { title: `renamed ${Math.random()}` });
              break;
            case 'archive':
              await call(node, 'POST', `/api/v1/sessions/${a}/archive`, h.fleetKey, {});
              break;
            case 'reparent':
              // refused unless older, same owner and acyclic: a refusal must leave every cached read current too
              await call(node, 'PATCH', `/api/v1/sessions/${Math.max(a, b)}`, admin, { parent_session_id: Math.min(a, b) });
              break;
            case 'delete':
              if (a !== root && (await call(node, 'DELETE', `/api/v1/sessions/${a}`, admin)).status === 200) ids.splice(ids.indexOf(a), 1);
              break;
            case 'uncle': {
              const actorId = await ensureActor(node.ctx.store.kysely, node.ctx.actors, { kind: 'session', sessionId: a }, new Date().toISOString());
              await recordUncleEdge(node.ctx, {
                actingSessionId: a,
                targetSessionId: b,
                basis: 'authenticated',
                source: 'rest.follow_up',
                attribution: { actorId, actorBasis: 'authenticated', causeActorId: actorId, causeBasis: 'authenticated', credentialId: null },
              });
              break;
            }
            case 'unlink':
              await call(node, 'DELETE', `/api/v1/sessions/${b}/uncle_links/${a}`, h.fleetKey);
              break;
            case 'read': {
              const cached = await hierarchyOf(node.ctx, FLEET, a);
              const session = (await findSessionById(node.ctx.store.kysely, node.ctx.store, a))!;
              const fresh = (await walkSession(node.ctx, session, 'all')).hierarchy;
              expect(cached).toEqual(fresh);
              // the session detail (REST GET /sessions/:ref, get_session) reads through the same cache
              expect((await getSessionDetail(node.ctx, FLEET, String(a))).hierarchy).toEqual(fresh);
              reads++;
              break;
            }
          }
        }
        // and a read of every session of the run on both nodes, after all of it
        for (const node of nodes) {
          for (const id of ids) {
            const cached = await hierarchyOf(node.ctx, FLEET, id);
            expect(cached).toEqual((await walkSession(node.ctx, (await findSessionById(node.ctx.store.kysely, node.ctx.store, id))!, 'all')).hierarchy);
            reads++;
          }
        }
      }),
      { numRuns: Number(process.env.WARRANT_PROPERTY_RUNS ?? 15) },
    );
    expect(reads).toBeGreaterThan(0);
    // the comparisons were of cached reads: on each node, with nothing changing, reads settle into
    // hits (an entry replaced after a change may need one more read to cover a bucket it had not
    // read before); a change on the other node makes the next read find its entry out of date
    const root = (await call(nodes[0]!, 'POST', '/api/v1/sessions', h.fleetKey, { title: 'settled root' })).body.session.id as number;
    await call(nodes[0]!, 'POST', '/api/v1/sessions', h.fleetKey, { title: 'settled child', parent_session_id: root });
    for (const [i, node] of nodes.entries()) {
      const stats = walkCacheStats(node.ctx);
      for (let k = 0; k < 3; k++) await hierarchyOf(node.ctx, FLEET, root);
      const hits = stats.hits;
      await hierarchyOf(node.ctx, FLEET, root);
      expect(stats.hits).toBe(hits + 1);
      const other = nodes[1 - i]!;
      expect((await call(other, 'PATCH', `/api/v1/sessions/${root}`, h.fleetKey, { title: `renamed on the other node ${i}` })).status).toBe(200);
      const stale = stats.stale;
      const after = await hierarchyOf(node.ctx, FLEET, root);
      expect(stats.stale).toBe(stale + 1);
      expect(after.nodes.find((n) => n.id === root)?.title).toBe(`renamed on the other node ${i}`);
    }
  });
  it("an agent message's timeline changes no walk: cached walks stay hits; a title or status change finds them out of date", async () => {
    const h = t();
    const post = async (path: string, token: string, body: unknown) => {
      const res = await h.service.app.request(path, {
        method: 'POST',
        headers: { host: 'localhost', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const root = (await post('/api/v1/sessions', h.fleetKey, { title: 'messaging root', attach: true })).body;
    const child = (await post('/api/v1/sessions', h.fleetKey, { title: 'messaging child', parent_session_id: root.session.id, attach: true })).body;
    const stats = walkCacheStats(h.ctx);
    const readBoth = async () => {
      for (const id of [root.session.id, child.session.id]) await hierarchyOf(h.ctx, FLEET, id);
    };
    // the first message between them records an uncle edge (a walk change); read both after it
    expect((await post('/api/v1/messages', child.session_token, { to: root.session.id, payload: 'first' })).status).toBe(201);
    await readBoth();
    await readBoth();
    const before = { ...stats };
    for (let i = 0; i < 3; i++) {
      expect((await post('/api/v1/messages', child.session_token, { to: root.session.id, payload: `again ${i}` })).status).toBe(201);
      expect((await post('/api/v1/messages', root.session_token, { to: child.session.id, payload: `reply ${i}` })).status).toBe(201);
      await readBoth();
    }
    expect({ hits: stats.hits - before.hits, stale: stats.stale - before.stale }).toEqual({ hits: 6, stale: 0 });
    // the same reads after changes a walk shows: each finds its entry out of date, and shows the change
    expect((await post(`/api/v1/sessions/${child.session.id}/runtime`, child.session_token, { state: 'exited', code: 0 })).status).toBe(200);
    let stale = stats.stale;
    const exited = await hierarchyOf(h.ctx, FLEET, root.session.id);
    expect(stats.stale).toBe(stale + 1);
    expect(exited.nodes.find((n) => n.id === child.session.id)?.status).toBe('stopped');
    const renamed = await h.service.app.request(`/api/v1/sessions/${root.session.id}`, {
      method: 'PATCH',
      headers: { host: 'localhost', authorization: `Bearer ${h.fleetKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'renamed root' }),
    });
    expect(renamed.status).toBe(200);
    stale = stats.stale;
    const fromChild = await hierarchyOf(h.ctx, FLEET, child.session.id);
    expect(stats.stale).toBe(stale + 1);
    expect(fromChild.nodes.find((n) => n.id === root.session.id)?.title).toBe('renamed root');
  });
});
