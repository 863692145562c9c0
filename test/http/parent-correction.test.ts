import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { eventsOf, followUp, liveSession } from '../helpers/lineage.js';

describeEachDialect('PATCH parent_session_id: the operator correction (docs/design/lineage.md)', (t) => {
  it('a human corrects their own session: parent_basis corrected, one attributed parent_changed event with old and new', async () => {
    const h = t();
    const { user, token } = await h.human(uniqueKey());
    const wrong = (await h.create(token, { title: 'wrong parent' })).session;
    const right = (await h.create(token, { title: 'right parent' })).session;
    const child = (await h.create(token, { title: 'child', parent_session_id: wrong.id })).session;
    expect(child.parent_basis).toBe('declared');
    const r = await h.request('PATCH', `/api/v1/sessions/${child.id}`, { token, body: { parent_session_id: `#${right.id}` } });
    expect(r.status).toBe(200);
    expect(r.body.changed).toEqual(['parent_changed']);
    expect(r.body.session).toMatchObject({ parent_session_id: right.id, parent_basis: 'corrected', lineage_parent_id: right.id });
    const events = await eventsOf(h, child.id, 'parent_changed');
    expect(events).toHaveLength(1);
    expect(events[0].details).toMatchObject({ old: wrong.id, new: right.id, old_basis: 'declared', new_basis: 'corrected' });
    expect(events[0].actor).toMatchObject({ kind: 'human', ref: user.key, basis: 'authenticated' });
    // the same value again records nothing
    const again = await h.request('PATCH', `/api/v1/sessions/${child.id}`, { token, body: { parent_session_id: right.id } });
    expect(again.body.changed).toEqual([]);
    expect(await eventsOf(h, child.id, 'parent_changed')).toHaveLength(1);
  });

  it('null clears the column; a title in the same PATCH lands in the same transaction', async () => {
    const h = t();
    const admin = await h.human(uniqueKey('admin'), { admin: true });
    const parent = (await h.create(h.fleetKey, {})).session;
    const child = (await h.create(h.fleetKey, { parent_session_id: parent.id })).session;
    const r = await h.request('PATCH', `/api/v1/sessions/${child.id}`, { token: admin.token, body: { parent_session_id: null, title: 'orphaned on purpose' } });
    expect(r.status).toBe(200);
    expect(r.body.changed).toEqual(['parent_changed', 'title_changed']);
    expect(r.body.session).toMatchObject({ parent_session_id: null, parent_basis: 'corrected', lineage_parent_id: null, title: 'orphaned on purpose' });
    // a refused correction takes the title down with it
    const refused = await h.request('PATCH', `/api/v1/sessions/${child.id}`, {
      token: admin.token,
      body: { parent_session_id: child.id + 1000, title: 'never' },
    });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toBe('parent-not-found');
    expect((await h.request('GET', `/api/v1/sessions/${child.id}`, { token: h.fleetKey })).body.session.title).toBe('orphaned on purpose');
  });

  it('refusals: parent-not-older (and itself), parent-cycle over uncle edges, parent-not-found', async () => {
    const h = t();
    const admin = await h.human(uniqueKey('admin'), { admin: true });
    const older = await liveSession(h, h.fleetKey);
    const younger = await liveSession(h, h.fleetKey);
    const notOlder = await h.request('PATCH', `/api/v1/sessions/${older.id}`, { token: admin.token, body: { parent_session_id: younger.id } });
    expect(notOlder.status).toBe(409);
    expect(notOlder.body).toMatchObject({ error: 'parent-not-older', field: 'parent_session_id' });
    const self = await h.request('PATCH', `/api/v1/sessions/${older.id}`, { token: admin.token, body: { parent_session_id: older.id } });
    expect(self.body.error).toBe('parent-not-older');
    // younger queued older: younger → older (uncle). older becoming younger's parent closes a loop.
    expect((await followUp(h, younger.token, older.id)).body.uncle_edge.outcome).toBe('written');
    const cycle = await h.request('PATCH', `/api/v1/sessions/${younger.id}`, { token: admin.token, body: { parent_session_id: older.id } });
    expect(cycle.status).toBe(409);
    expect(cycle.body.error).toBe('parent-cycle');
    expect((await h.request('GET', `/api/v1/sessions/${younger.id}`, { token: h.fleetKey })).body.session.parent_session_id).toBeNull();
    const missing = await h.request('PATCH', `/api/v1/sessions/${younger.id}`, { token: admin.token, body: { parent_session_id: 'uid:abcdef' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'parent-not-found', reason: 'prefix-too-short' });
    expect(await eventsOf(h, younger.id, 'parent_changed')).toEqual([]);
  });

  it('legacy-parent: clearing a parent from the legacy key is refused; re-pointing it is a correction', async () => {
    const h = t();
    const admin = await h.human(uniqueKey('admin'), { admin: true });
    const router = (await h.create(h.fleetKey, { title: 'router' })).session;
    const other = (await h.create(h.fleetKey, { title: 'other' })).session;
    const legacy = (await h.create(h.fleetKey, { custom_metadata: { router_session_id: router.uid } })).session;
    expect(legacy).toMatchObject({ parent_basis: 'legacy', parent_session_id: null, lineage_parent_id: router.id });
    const cleared = await h.request('PATCH', `/api/v1/sessions/${legacy.id}`, { token: admin.token, body: { parent_session_id: null } });
    expect(cleared.status).toBe(409);
    expect(cleared.body.error).toBe('legacy-parent');
    const repointed = await h.request('PATCH', `/api/v1/sessions/${legacy.id}`, { token: admin.token, body: { parent_session_id: other.id } });
    expect(repointed.status).toBe(200);
    expect(repointed.body.session).toMatchObject({ parent_session_id: other.id, parent_basis: 'corrected', lineage_parent_id: other.id });
    expect(repointed.body.session.custom_metadata).toEqual({ router_session_id: router.uid }); // never rewritten
    const [e] = await eventsOf(h, legacy.id, 'parent_changed');
    expect(e.details).toMatchObject({ old: router.id, new: other.id, old_basis: 'legacy' });
  });

  it('who may: humans and admins only (fleet, session tokens and clients are refused)', async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey);
    const child = await liveSession(h, h.fleetKey);
    const client = await h.clientKey(`c${Date.now().toString(36)}`);
    for (const token of [h.fleetKey, child.token, parent.token, client]) {
      const r = await h.request('PATCH', `/api/v1/sessions/${child.id}`, { token, body: { parent_session_id: parent.id } });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ error: 'forbidden', act: 'patch-parent' });
    }
    expect((await h.request('GET', `/api/v1/sessions/${child.id}`, { token: h.fleetKey })).body.session.parent_session_id).toBeNull();
  });
});

describeEachDialect(
  'PATCH parent_session_id in multi-user mode',
  (t) => {
    it('the new parent must be visible to the caller and of the same owner', async () => {
      const h = t();
      const alice = await h.human(uniqueKey('alice'));
      const bob = await h.human(uniqueKey('bob'));
      const admin = await h.human(uniqueKey('admin'), { admin: true });
      const alicesOld = (await h.create(alice.token, {})).session;
      const bobsOld = (await h.create(bob.token, {})).session;
      const unowned = (await h.create(h.fleetKey, {})).session;
      const alicesNew = (await h.create(alice.token, {})).session;
      const invisible = await h.request('PATCH', `/api/v1/sessions/${alicesNew.id}`, { token: alice.token, body: { parent_session_id: bobsOld.id } });
      expect(invisible.status).toBe(404);
      expect(invisible.body).toMatchObject({ error: 'parent-not-found', reason: 'not-found' });
      // visible (unowned) but of another owner
      const foreign = await h.request('PATCH', `/api/v1/sessions/${alicesNew.id}`, { token: alice.token, body: { parent_session_id: unowned.id } });
      expect(foreign.status).toBe(409);
      expect(foreign.body.error).toBe('parent-owner-mismatch');
      // an admin sees Bob's session, and is still refused across owners
      const byAdmin = await h.request('PATCH', `/api/v1/sessions/${alicesNew.id}`, { token: admin.token, body: { parent_session_id: bobsOld.id } });
      expect(byAdmin.body.error).toBe('parent-owner-mismatch');
      // Bob cannot touch Alice's session at all
      const notHis = await h.request('PATCH', `/api/v1/sessions/${alicesNew.id}`, { token: bob.token, body: { parent_session_id: bobsOld.id } });
      expect(notHis.status).toBe(404);
      expect(notHis.body.error).toBe('session-not-found');
      const ok = await h.request('PATCH', `/api/v1/sessions/${alicesNew.id}`, { token: alice.token, body: { parent_session_id: alicesOld.id } });
      expect(ok.status).toBe(200);
      expect(ok.body.session.parent_session_id).toBe(alicesOld.id);
    });
  },
  { mode: 'multi-user' },
);
