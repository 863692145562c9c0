import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { liveSession } from '../helpers/lineage.js';

/** Two sessions whose uids share an 8-hex prefix (set directly: uids are random). */
async function ambiguousPair(h: Harness): Promise<{ prefix: string; ids: number[] }> {
  const prefix = `f${randomBytes(4).toString('hex').slice(0, 7)}`;
  const ids: number[] = [];
  for (const tail of ['000000000001', '000000000002']) {
    const s = (await h.create(h.fleetKey, {})).session;
    await h.store.kysely
      .updateTable('sessions')
      .set({ uid: `${prefix}-aaaa-4aaa-8aaa-${tail}` })
      .where('id', '=', s.id)
      .execute();
    ids.push(s.id);
  }
  return { prefix, ids };
}

describeEachDialect('parent resolution at create (docs/design/lineage.md "resolved, not trusted")', (t) => {
  it('body beats header; each names its source; the header alone is used when the body is silent', async () => {
    const h = t();
    const p1 = (await h.create(h.fleetKey, {})).session;
    const p2 = (await h.create(h.fleetKey, {})).session;
    const both = await h.create(h.fleetKey, { parent_session_id: p1.id }, { 'x-warrant-parent-session': String(p2.id) });
    expect(both.parent_resolution).toEqual({ requested: String(p1.id), resolved_id: p1.id, basis: 'declared', dropped: null, source: 'body' });
    expect(both.session).toMatchObject({ parent_session_id: p1.id, parent_basis: 'declared' });
    const alias = await h.create(h.fleetKey, { parentSessionId: p1.uid }, { 'x-warrant-parent-session': String(p2.id) });
    expect(alias.parent_resolution).toMatchObject({ resolved_id: p1.id, source: 'body' });
    const header = await h.create(h.fleetKey, {}, { 'x-warrant-parent-session': `#${p2.id}` });
    expect(header.parent_resolution).toMatchObject({ resolved_id: p2.id, basis: 'declared', source: 'header' });
    // an unresolvable body hint still wins: the header is not consulted
    const bodyWins = await h.create(h.fleetKey, { parent_session_id: 999_999_999 }, { 'x-warrant-parent-session': String(p2.id) });
    expect(bodyWins.parent_resolution).toMatchObject({ resolved_id: null, dropped: 'not-found', source: 'body' });
    expect(bodyWins.session.parent_session_id).toBeNull();
  });

  it('unknown, ambiguous, too-short and too-long hints create the session without a parent and say why', async () => {
    const h = t();
    const { prefix, ids } = await ambiguousPair(h);
    const cases: [unknown, string][] = [
      [999_999_999, 'not-found'],
      ['uid:00000000-0000-4000-8000-000000000000', 'not-found'],
      [prefix, 'ambiguous-prefix'],
      ['abcdef1', 'prefix-too-short'],
      ['x'.repeat(101), 'hint-too-long'],
      ['9'.repeat(300), 'hint-too-long'],
      [-5, 'not-found'],
      [0, 'not-found'],
      [1.5, 'not-found'],
      ['not a ref at all', 'not-found'],
    ];
    for (const [hint, reason] of cases) {
      const r = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'hinted', parent_session_id: hint } });
      expect(r.status, `hint ${String(hint).slice(0, 20)}`).toBe(201);
      expect(r.body.parent_resolution).toMatchObject({ requested: String(hint), resolved_id: null, basis: null, dropped: reason });
      expect(r.body.session).toMatchObject({ parent_session_id: null, parent_basis: null, lineage_parent_id: null });
    }
    const longHeader = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: {}, headers: { 'x-warrant-parent-session': 'y'.repeat(150) } });
    expect(longHeader.status).toBe(201);
    expect(longHeader.body.parent_resolution).toMatchObject({ dropped: 'hint-too-long', source: 'header' });
    // a unique prefix resolves; a blank header is no hint at all
    const full = await h.create(h.fleetKey, { parent_session_id: `${prefix}-aaaa-4aaa-8aaa-000000000002` });
    expect(full.parent_resolution).toMatchObject({ resolved_id: ids[1], basis: 'declared' });
    const target = (await h.create(h.fleetKey, {})).session;
    await h.store.kysely
      .updateTable('sessions')
      .set({ uid: `e${prefix.slice(1)}-bbbb-4bbb-8bbb-000000000001` })
      .where('id', '=', target.id)
      .execute();
    const unique = await h.create(h.fleetKey, { parent_session_id: `e${prefix.slice(1)}` });
    expect(unique.parent_resolution).toMatchObject({ resolved_id: target.id, basis: 'declared' });
    const blank = await h.create(h.fleetKey, {}, { 'x-warrant-parent-session': '  ' });
    expect(blank.parent_resolution).toEqual({ requested: null, resolved_id: null, basis: null, dropped: null, source: null });
  });

  it('a session token is the parent; a hint naming another session is dropped as caller-disagrees', async () => {
    const h = t();
    const caller = await liveSession(h, h.fleetKey);
    const other = (await h.create(h.fleetKey, {})).session;
    const r = await h.create(caller.token, { parent_session_id: other.id });
    expect(r.parent_resolution).toMatchObject({
      requested: String(other.id),
      resolved_id: caller.id,
      basis: 'authenticated',
      dropped: 'caller-disagrees',
      source: 'session-token',
    });
    expect(r.session).toMatchObject({ parent_session_id: caller.id, parent_basis: 'authenticated' });
    const agrees = await h.create(caller.token, { parent_session_id: caller.uid });
    expect(agrees.parent_resolution.dropped).toBeNull();
  });

  it('the legacy key: exact id or uid only, derived (never copied), and a dangling key means no parent', async () => {
    const h = t();
    const router = (await h.create(h.fleetKey, {})).session;
    const byUid = await h.create(h.fleetKey, { custom_metadata: { router_session_id: router.uid } });
    expect(byUid.parent_resolution).toMatchObject({ resolved_id: router.id, basis: 'legacy', source: 'legacy-key' });
    expect(byUid.session).toMatchObject({ parent_session_id: null, parent_basis: 'legacy', lineage_parent_id: router.id });
    const byPrefix = await h.create(h.fleetKey, { custom_metadata: { router_session_id: router.uid.slice(0, 13) } });
    expect(byPrefix.parent_resolution).toMatchObject({ resolved_id: null, dropped: 'not-found', source: 'legacy-key' });
    const dangling = await h.create(h.fleetKey, { custom_metadata: { router_session_id: { nested: true } } });
    expect(dangling.parent_resolution).toMatchObject({ resolved_id: null, dropped: 'not-found' });
    expect(dangling.session.lineage_parent_id).toBeNull();
    // a declared hint beats the legacy key
    const other = (await h.create(h.fleetKey, {})).session;
    const both = await h.create(h.fleetKey, { parent_session_id: other.id, custom_metadata: { router_session_id: String(router.id) } });
    expect(both.parent_resolution).toMatchObject({ resolved_id: other.id, basis: 'declared', source: 'body' });
  });
});

describeEachDialect(
  'parent resolution in multi-user mode',
  (t) => {
    it('an invisible parent is dropped as not-found (like a missing one), a foreign-owner one as owner-mismatch; the create succeeds', async () => {
      const h = t();
      const alice = await h.human(uniqueKey('alice'));
      const bob = await h.human(uniqueKey('bob'));
      const bobs = (await h.create(bob.token, {})).session;
      const unowned = (await h.create(h.fleetKey, {})).session;
      const alices = (await h.create(alice.token, {})).session;

      const invisible = await h.create(alice.token, { parent_session_id: bobs.id });
      expect(invisible.parent_resolution).toMatchObject({ resolved_id: null, dropped: 'not-found' });
      expect(invisible.session).toMatchObject({ parent_session_id: null, owner: alice.user.key });
      const foreign = await h.create(alice.token, { parent_session_id: unowned.id });
      expect(foreign.parent_resolution).toMatchObject({ resolved_id: null, dropped: 'owner-mismatch' });
      // a fleet creator naming an owner: the hint must match it
      const fleetForAlice = await h.create(h.fleetKey, { owner: alice.user.key, parent_session_id: bobs.id });
      expect(fleetForAlice.parent_resolution).toMatchObject({ resolved_id: null, dropped: 'owner-mismatch' });
      const own = await h.create(alice.token, { parent_session_id: alices.id });
      expect(own.parent_resolution).toMatchObject({ resolved_id: alices.id, basis: 'declared' });
      // without an owner, a fleet-created child inherits its resolved parent's owner
      const inherits = await h.create(h.fleetKey, { parent_session_id: alices.id });
      expect(inherits.session).toMatchObject({ parent_session_id: alices.id, owner: alice.user.key });
    });
  },
  { mode: 'multi-user' },
);
