import { expect, it } from 'vitest';
import { permissionFor, type PrincipalKind } from '../../src/core/permissions.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { mcpClient } from '../helpers/mcp-client.js';
import { ROUTE_CATALOG, UNAUTHENTICATED_ROUTES, type CatalogEntry } from '../helpers/route-catalog.js';

/**
 * docs/design/quality.md: an authorization test generated from docs/design/sessions.md's "Who may do what" table — every
 * token kind × every route and tool in the catalogue → the table's allow or deny.
 */
type Principal = { kind: PrincipalKind; relation?: 'self' | 'descendant' | 'runtime-child' | 'unrelated' };
const PRINCIPALS: Principal[] = [
  { kind: 'fleet' },
  { kind: 'human' },
  { kind: 'client' },
  { kind: 'admin' },
  { kind: 'session', relation: 'self' },
  { kind: 'session', relation: 'descendant' },
  // a subagent session the token's runtime created (POST /sessions/{ref}/children): a descendant too
  { kind: 'session', relation: 'runtime-child' },
  { kind: 'session', relation: 'unrelated' },
];

async function fixture(h: Harness, p: Principal, entry: CatalogEntry): Promise<{ token: string; targetId: number }> {
  const target = async (token: string, extra: Record<string, unknown> = {}) =>
    (await h.create(token, { title: 'matrix target', ...extra })).session.id as number;
  switch (p.kind) {
    case 'fleet':
      return { token: h.fleetKey, targetId: await target(h.fleetKey) };
    case 'client': {
      const token = await h.clientKey(`c${Math.floor(Math.random() * 1e9).toString(36)}`);
      return { token, targetId: await target(h.fleetKey) };
    }
    case 'human':
    case 'admin': {
      const { token } = await h.human(uniqueKey(p.kind), { admin: p.kind === 'admin' });
      // a human's own session (in single-admin mode every session is visible anyway)
      return { token, targetId: await target(token) };
    }
    case 'session': {
      const parent = entry.actorHasParent ? { parent_session_id: await target(h.fleetKey) } : {};
      const created = await h.create(h.fleetKey, { title: 'matrix actor', attach: true, ...parent });
      const token = created.session_token as string;
      if (p.relation === 'self') return { token, targetId: created.session.id };
      if (p.relation === 'descendant') return { token, targetId: await target(token) };
      if (p.relation === 'runtime-child') {
        const child = await h.request('POST', `/api/v1/sessions/${created.session.id}/children`, {
          token,
          body: { origin: 'subagent', provider: 'claude-code', conversation_id: `matrix-child-${created.session.id}` },
        });
        if (child.status !== 201) throw new Error(`matrix: runtime child failed: ${child.status} ${child.text}`);
        return { token, targetId: child.body.session.id };
      }
      return { token, targetId: await target(h.fleetKey) };
    }
  }
}

function expectVerdict(label: string, entry: CatalogEntry, allowed: boolean, r: { status: number; error?: string }): void {
  if (allowed) {
    expect([401, 403, 404], `${label}: got ${r.status} ${r.error ?? ''}`).not.toContain(r.status);
    expect(r.status, `${label}: got ${r.status} ${r.error ?? ''}`).toBeLessThan(500);
  } else {
    const denial = entry.denial ?? { status: 403, error: 'forbidden' };
    expect(r.status, `${label}: got ${r.status} ${r.error ?? ''}`).toBe(denial.status);
    expect(r.error).toBe(denial.error);
  }
}

describeEachDialect('authorization matrix generated from docs/design/sessions.md', (t) => {
  for (const entry of ROUTE_CATALOG) {
    for (const p of PRINCIPALS) {
      if (!entry.targeted && p.relation && p.relation !== 'self') continue;
      const relation =
        p.kind !== 'session'
          ? null
          : !entry.targeted
            ? { isSelf: true, isDescendant: false }
            : {
                isSelf: p.relation === 'self',
                isDescendant: p.relation === 'descendant' || p.relation === 'runtime-child',
                isRuntimeChild: p.relation === 'runtime-child',
              };
      const allowed = entry.allowed ? entry.allowed(p.kind, relation) : permissionFor(p.kind, entry.act, entry.targeted ? relation : null).allowed;
      const label = `${entry.name} as ${p.kind}${p.relation && entry.targeted ? ` (${p.relation})` : ''} → ${allowed ? 'allowed' : 'denied'}`;
      it(label, async () => {
        const h = t();
        const { token, targetId } = await fixture(h, p, entry);
        await entry.prepare?.(h, targetId);
        expectVerdict(label, entry, allowed, await entry.call(h, token, targetId));
      });
    }
  }

  it('the catalogue covers every served route and every tool of both MCP surfaces', async () => {
    const h = t();
    const doc = (await h.request('GET', '/api/v1/openapi.json')).body;
    const served = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) served.add(`${method.toUpperCase()} ${path}`);
    }
    // routes outside the OpenAPI document that still take a credential
    served.add('GET /api/v1/events/stream');
    const live = await h.create(h.fleetKey, { title: 'lists the tools', attach: true });
    for (const [path, token] of [
      ['/mcp', h.fleetKey],
      ['/mcp/self', live.session_token],
    ] as const) {
      const client = await mcpClient(h, token, path);
      try {
        for (const tool of (await client.listTools()).tools) served.add(`${path.slice(1)} ${tool.name}`);
      } finally {
        await client.close();
      }
    }
    const covered = new Set([...ROUTE_CATALOG.map((e) => e.covers), ...UNAUTHENTICATED_ROUTES]);
    const missing = [...served].filter((k) => !covered.has(k)).sort();
    const stale = ROUTE_CATALOG.map((e) => e.covers).filter((k) => !served.has(k));
    expect(missing, 'served routes/tools with no row in the authorization matrix').toEqual([]);
    expect(stale, 'catalogue rows naming nothing that is served').toEqual([]);
    // a sanity check that the comparison sees both surfaces at all
    expect(served.has('GET /api/v1/sessions/{ref}')).toBe(true);
    expect(served.has('mcp/self read_inbox')).toBe(true);
  });
});

/**
 * docs/design/sessions.md "Multi-user scoping": a human who does not own a session is told it does not exist —
 * the same answer as for an id that was never used — on every targeted route and tool; the
 * owner is judged by the table as usual.
 */
describeEachDialect(
  'authorization matrix in multi-user mode: the non-owner human',
  (t) => {
    const targeted = ROUTE_CATALOG.filter((e) => e.targeted);
    for (const entry of targeted) {
      it(`${entry.name}: another owner's session answers like a missing one; the owner is judged by the table`, async () => {
        const h = t();
        const alice = await h.human(uniqueKey('alice'));
        const bob = await h.human(uniqueKey('bob'));
        const alices = (await h.create(alice.token, { title: "alice's" })).session.id as number;
        const hidden = await entry.call(h, bob.token, alices);
        expect(hidden.status, `${entry.name} as a non-owner: got ${hidden.status} ${hidden.error ?? ''}`).not.toBe(200);
        expect([403, 404]).toContain(hidden.status);
        if (hidden.status === 403) {
          // only an act a human may never do, refused before the target is looked at
          const allowedAnywhere = entry.allowed ? entry.allowed('human', null) : permissionFor('human', entry.act, null).allowed;
          expect(allowedAnywhere, `${entry.name}: a 403 would reveal that another owner's session exists`).toBe(false);
          expect(hidden.error).toBe(entry.denial?.status === 403 ? entry.denial.error : 'forbidden');
        } else {
          expect(hidden.error).toBe(entry.denial?.status === 404 ? entry.denial.error : 'session-not-found');
        }
        const mine = (await h.create(alice.token, { title: 'alice again' })).session.id as number;
        const own = await entry.call(h, alice.token, mine);
        const allowed = entry.allowed ? entry.allowed('human', null) : permissionFor('human', entry.act, null).allowed;
        expectVerdict(`${entry.name} as the owner`, entry, allowed, own);
      });
    }
  },
  { mode: 'multi-user' },
);
