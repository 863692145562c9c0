import { expect, it } from 'vitest';
import { permissionFor, type PrincipalKind } from '../../src/core/permissions.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { ROUTE_CATALOG } from '../helpers/route-catalog.js';

/**
 * spec 07: an authorization test generated from spec 01's "Who may do what" table — every
 * token kind × every route and tool in the catalogue → the table's allow or deny.
 */
type Principal = { kind: PrincipalKind; relation?: 'self' | 'descendant' | 'unrelated' };
const PRINCIPALS: Principal[] = [
  { kind: 'fleet' },
  { kind: 'human' },
  { kind: 'client' },
  { kind: 'admin' },
  { kind: 'session', relation: 'self' },
  { kind: 'session', relation: 'descendant' },
  { kind: 'session', relation: 'unrelated' },
];

async function fixture(h: Harness, p: Principal): Promise<{ token: string; targetId: number }> {
  const target = async (token: string, extra: Record<string, unknown> = {}) => (await h.create(token, { title: 'matrix target', ...extra })).session.id as number;
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
      const created = await h.create(h.fleetKey, { title: 'matrix actor', attach: true });
      const token = created.session_token as string;
      if (p.relation === 'self') return { token, targetId: created.session.id };
      if (p.relation === 'descendant') return { token, targetId: await target(token) };
      return { token, targetId: await target(h.fleetKey) };
    }
  }
}

describeEachDialect('authorization matrix generated from spec 01', (t) => {
  for (const entry of ROUTE_CATALOG) {
    for (const p of PRINCIPALS) {
      if (!entry.targeted && p.relation && p.relation !== 'self') continue;
      const relation = !entry.targeted || p.kind !== 'session' ? null : { isSelf: p.relation === 'self', isDescendant: p.relation === 'descendant' };
      const verdict = permissionFor(p.kind, entry.act, relation);
      const label = `${entry.name} as ${p.kind}${p.relation && entry.targeted ? ` (${p.relation})` : ''} → ${verdict.allowed ? 'allowed' : 'denied'}`;
      it(label, async () => {
        const h = t();
        const { token, targetId } = await fixture(h, p);
        await entry.prepare?.(h, targetId);
        const r = await entry.call(h, token, targetId);
        if (verdict.allowed) {
          expect([401, 403, 404], `${label}: got ${r.status} ${r.error ?? ''}`).not.toContain(r.status);
        } else {
          expect(r.status, `${label}: got ${r.status} ${r.error ?? ''}`).toBe(403);
          expect(r.error).toBe('forbidden');
        }
      });
    }
  }
});
