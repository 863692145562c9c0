import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { revokeIssuedToken } from '../../src/app/roster.js';
import { systemCaller } from '../../src/app/caller.js';

describeEachDialect('authentication and tokens (docs/design/sessions.md)', (t) => {
  it('a request without a token gets 401 in the error format; public routes need none', async () => {
    const h = t();
    const r = await h.request('GET', '/api/v1/sessions');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'unauthenticated' });
    expect(typeof r.body.message).toBe('string');
    expect((await h.request('GET', '/api/v1/health')).status).toBe(200);
    const doc = await h.request('GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toContain('/api/v1/sessions/{ref}');
  });

  it('refuses unknown, malformed and revoked tokens', async () => {
    const h = t();
    expect((await h.request('GET', '/api/v1/sessions', { token: 'not-a-token' })).body.error).toBe('invalid-token');
    expect((await h.request('GET', '/api/v1/sessions', { token: 'wrt_f_' + 'x'.repeat(43) })).body.error).toBe('invalid-token');
    const { token } = await h.human(uniqueKey('revoked'));
    expect((await h.request('GET', '/api/v1/sessions', { token })).status).toBe(200);
    const row = await h.store.kysely
      .selectFrom('tokens')
      .select('id')
      .where('token_hash', '=', createHash('sha256').update(token).digest('hex'))
      .executeTakeFirstOrThrow();
    await revokeIssuedToken(h.ctx, systemCaller('cli'), Number(row.id));
    const after = await h.request('GET', '/api/v1/sessions', { token });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('invalid-token');
  });

  it('stores tokens only as SHA-256 digests', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('hashed'));
    const created = await h.create(h.fleetKey, { attach: true });
    const rows = await h.store.kysely.selectFrom('tokens').select(['token_hash', 'kind']).execute();
    const all = JSON.stringify(rows);
    for (const secret of [token, h.fleetKey, created.session_token]) {
      expect(all).not.toContain(secret);
      expect(rows.map((r) => r.token_hash)).toContain(createHash('sha256').update(secret).digest('hex'));
    }
    for (const r of rows) expect(r.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('every act records the credential it used', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('cred'));
    const s = (await h.create(token, { title: 'credential' })).session;
    const events = (await h.request('GET', `/api/v1/sessions/${s.id}/events`, { token })).body.events;
    const expected = await h.store.kysely
      .selectFrom('tokens')
      .select('id')
      .where('token_hash', '=', createHash('sha256').update(token).digest('hex'))
      .executeTakeFirstOrThrow();
    expect(events[0].credential_id).toBe(Number(expected.id));
  });

  it('a session token acts only as its session', async () => {
    const h = t();
    const me = await h.create(h.fleetKey, { title: 'me', attach: true });
    const other = (await h.create(h.fleetKey, { title: 'other' })).session;
    const mismatch = await h.request('POST', `/api/v1/sessions/${me.session.id}/stop`, { token: me.session_token, body: { acting_session_id: other.id } });
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.error).toBe('acting-session-mismatch');
    const patchOther = await h.request('PATCH', `/api/v1/sessions/${other.id}`, { token: me.session_token, body: { title: 'hijack' } });
    expect(patchOther.status).toBe(403);
    expect(patchOther.body.error).toBe('forbidden');
    const runtimeOther = await h.request('POST', `/api/v1/sessions/${other.id}/runtime`, { token: me.session_token, body: { state: 'idle' } });
    expect(runtimeOther.status).toBe(403);
    // …while acting as itself is fine, and its acts are authenticated as that session
    const own = await h.request('PATCH', `/api/v1/sessions/${me.session.id}`, { token: me.session_token, body: { title: 'mine' } });
    expect(own.status).toBe(200);
    const ev = (await h.request('GET', `/api/v1/sessions/${me.session.id}/events`, { token: h.fleetKey })).body.events.at(-1);
    expect(ev).toMatchObject({ type: 'title_changed', actor: { kind: 'session', ref: String(me.session.id), basis: 'authenticated' } });
  });

  it('a superseded token can read but not write; the current one can', async () => {
    const h = t();
    const first = await h.create(h.fleetKey, { title: 'supersede', attach: true });
    const id = first.session.id;
    await h.request('POST', `/api/v1/sessions/${id}/runtime`, { token: h.fleetKey, body: { state: 'exited', code: 0 } });
    const second = await h.request('POST', `/api/v1/sessions/${id}/attach`, { token: h.fleetKey });
    expect(second.body.session_token).not.toBe(first.session_token);
    const read = await h.request('GET', `/api/v1/sessions/${id}`, { token: first.session_token });
    expect(read.status).toBe(200);
    const write = await h.request('PATCH', `/api/v1/sessions/${id}`, { token: first.session_token, body: { title: 'stale' } });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: 'token-superseded', token_activation: 1, current_activation: 2 });
    const spawn = await h.request('POST', '/api/v1/sessions', { token: first.session_token, body: { title: 'child' } });
    expect(spawn.body.error).toBe('token-superseded');
    const current = await h.request('PATCH', `/api/v1/sessions/${id}`, { token: second.body.session_token, body: { title: 'fresh' } });
    expect(current.status).toBe(200);
  });

  it('a token is inert while its session is not live', async () => {
    const h = t();
    const s = await h.create(h.fleetKey, { title: 'inert', attach: true });
    await h.request('POST', `/api/v1/sessions/${s.session.id}/runtime`, { token: s.session_token, body: { state: 'exited', code: 0 } });
    const write = await h.request('POST', '/api/v1/sessions', { token: s.session_token, body: { title: 'child' } });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: 'session-not-live', status: 'stopped' });
    expect((await h.request('GET', `/api/v1/sessions/${s.session.id}`, { token: s.session_token })).status).toBe(200);
  });

  it('a session token spawns authenticated children under itself; humans may not name acting sessions', async () => {
    const h = t();
    const parent = await h.create(h.fleetKey, { title: 'parent', attach: true });
    const child = await h.create(parent.session_token, { title: 'child' });
    expect(child.session).toMatchObject({
      parent_session_id: parent.session.id,
      parent_basis: 'authenticated',
      creator: { kind: 'session', ref: String(parent.session.id) },
      creator_basis: 'authenticated',
    });
    const { token } = await h.human(uniqueKey('noact'));
    const r = await h.request('POST', `/api/v1/sessions/${child.session.id}/archive`, { token, body: { acting_session_id: parent.session.id } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('acting-session-not-allowed');
  });

  it('multi-user scoping: an invisible session is a 404, exactly like a missing one', async () => {
    const { openHarness } = await import('../helpers/harness.js');
    const h = await openHarness(t().dialect, { mode: 'multi-user' });
    try {
      const alice = await h.human(uniqueKey('alice'));
      const bob = await h.human(uniqueKey('bob'));
      const mine = (await h.create(alice.token, { title: "alice's" })).session;
      expect(mine.owner).toBe(alice.user.key);
      const hidden = await h.request('GET', `/api/v1/sessions/${mine.id}`, { token: bob.token });
      const missing = await h.request('GET', '/api/v1/sessions/999999', { token: bob.token });
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual({ ...missing.body, message: hidden.body.message });
      expect(hidden.body.error).toBe('session-not-found');
      const list = await h.request('GET', '/api/v1/sessions', { token: bob.token });
      expect(list.body.sessions.map((s: any) => s.id)).not.toContain(mine.id);
      expect((await h.request('GET', `/api/v1/sessions/${mine.id}`, { token: h.fleetKey })).status).toBe(200);
      // an unowned session is visible to every human
      const unowned = (await h.create(h.fleetKey, { title: 'shared' })).session;
      expect((await h.request('GET', `/api/v1/sessions/${unowned.id}`, { token: bob.token })).status).toBe(200);
      // a session token sees its owner's sessions only
      const run = await h.create(h.fleetKey, { title: 'alice worker', owner: alice.user.key, attach: true });
      expect((await h.request('GET', `/api/v1/sessions/${mine.id}`, { token: run.session_token })).status).toBe(200);
      expect((await h.request('GET', `/api/v1/sessions/${unowned.id}`, { token: run.session_token })).status).toBe(404);
    } finally {
      await h.close();
    }
  });
});

describeEachDialect('GET /metrics (docs/design/surfaces.md)', (t) => {
  it('serves Prometheus text to the fleet key and admins only', async () => {
    const h = t();
    await h.request('GET', '/api/v1/sessions', { token: h.fleetKey });
    const r = await h.request('GET', '/metrics', { token: h.fleetKey });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    expect(r.text).toMatch(/warrant_http_requests_total\{method="GET",route="\/api\/v1\/sessions",status="200"\} \d+/);
    expect(r.text).toContain('warrant_sse_clients ');
    expect(r.text).toContain('warrant_inbox_depth ');
    const { token } = await h.human(uniqueKey('not-admin'));
    const denied = await h.request('GET', '/metrics', { token });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('forbidden');
    expect((await h.request('GET', '/metrics')).status).toBe(401);
    const admin = await h.human(uniqueKey('admin'), { admin: true });
    expect((await h.request('GET', '/metrics', { token: admin.token })).status).toBe(200);
  });
});
