import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';

describeEachDialect('session refs: one resolver for every surface (docs/design/sessions.md)', (t) => {
  it('resolves #id, id, uid, uid: and a unique 8-character prefix with a letter', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'refs' })).session;
    const uid = 'abcdef01-2345-4678-9abc-def012345678';
    await h.store.kysely.updateTable('sessions').set({ uid }).where('id', '=', s.id).execute();
    for (const ref of [`#${s.id}`, String(s.id), uid, uid.replace(/-/g, ''), `uid:${uid}`, 'abcdef01', 'ABCDEF01', 'uid:abcdef01', 'abcdef01-23']) {
      const r = await h.request('GET', `/api/v1/sessions/${encodeURIComponent(ref)}`, { token: h.fleetKey });
      expect(r.status, ref).toBe(200);
      expect(r.body.session.id, ref).toBe(s.id);
    }
  });

  it('does not resolve a 7-character prefix or an ambiguous prefix, and says why', async () => {
    const h = t();
    const a = (await h.create(h.fleetKey, { title: 'a' })).session;
    const b = (await h.create(h.fleetKey, { title: 'b' })).session;
    await h.store.kysely.updateTable('sessions').set({ uid: 'bbbbbbb1-0000-4000-8000-000000000001' }).where('id', '=', a.id).execute();
    await h.store.kysely.updateTable('sessions').set({ uid: 'bbbbbbb1-0000-4000-8000-000000000002' }).where('id', '=', b.id).execute();
    const short = await h.request('GET', '/api/v1/sessions/bbbbbbb', { token: h.fleetKey });
    expect(short.status).toBe(404);
    expect(short.body).toMatchObject({ error: 'session-not-found', reason: 'prefix-too-short' });
    const ambiguous = await h.request('GET', '/api/v1/sessions/bbbbbbb1', { token: h.fleetKey });
    expect(ambiguous.status).toBe(404);
    expect(ambiguous.body).toMatchObject({ error: 'session-not-found', reason: 'ambiguous-prefix' });
    // one more character makes it unique again
    const unique = await h.request('GET', '/api/v1/sessions/bbbbbbb1-0000-4000-8000-000000000002', { token: h.fleetKey });
    expect(unique.body.session.id).toBe(b.id);
  });

  it('reads all-digit strings as ids, never as uid prefixes', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'digits' })).session;
    await h.store.kysely.updateTable('sessions').set({ uid: '12345678-9012-4345-8678-901234567890' }).where('id', '=', s.id).execute();
    const asId = await h.request('GET', '/api/v1/sessions/12345678', { token: h.fleetKey });
    expect(asId.status).toBe(404);
    expect(asId.body.reason).toBe('not-found');
    const asUid = await h.request('GET', '/api/v1/sessions/uid:12345678', { token: h.fleetKey });
    expect(asUid.body.session.id).toBe(s.id);
  });
});
