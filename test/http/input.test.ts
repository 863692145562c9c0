import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';

describeEachDialect('bad input gets a clear error and loses nothing (docs/design/surfaces.md, docs/design/quality.md)', (t) => {
  it('malformed JSON → 400 malformed-json', async () => {
    const h = t();
    const r = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, raw: '{"title": ' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('malformed-json');
  });

  it('a NUL character (U+0000) in text is refused alike on both backends, and nothing is written', async () => {
    const h = t();
    const before = (await h.request('GET', '/api/v1/sessions?status=&limit=200', { token: h.fleetKey })).body.sessions.length;
    const created = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'nul\u0000inside' } });
    expect(created.status).toBe(400);
    expect(created.body.error).toBe('invalid-request');
    expect(created.body.message).toContain('U+0000');
    expect((await h.request('GET', '/api/v1/sessions?status=&limit=200', { token: h.fleetKey })).body.sessions.length).toBe(before);
    const s = (await h.create(h.fleetKey, { title: 'clean' })).session;
    const patched = await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token: h.fleetKey, body: { title: 'still\u0000nul' } });
    expect(patched.status).toBe(400);
    expect((await h.request('GET', `/api/v1/sessions/${s.id}`, { token: h.fleetKey })).body.session.title).toBe('clean');
  });

  it('wrong types → 400 naming the field', async () => {
    const h = t();
    const r = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 42 } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid-request', field: 'title' });
    expect(r.body.message).toMatch(/^title: /);
    const p = await h.request('PATCH', '/api/v1/sessions/1', { token: h.fleetKey, body: { starred: 'yes' } });
    expect(p.status).toBe(400);
    expect(p.body.field).toBe('starred');
  });

  it('unknown keys are ignored on create and rejected on PATCH', async () => {
    const h = t();
    const c = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'x', surprise: true } });
    expect(c.status).toBe(201);
    const p = await h.request('PATCH', `/api/v1/sessions/${c.body.session.id}`, { token: h.fleetKey, body: { title: 'y', surprise: true } });
    expect(p.status).toBe(400);
    expect(p.body).toMatchObject({ error: 'invalid-request', field: 'surprise' });
    // and nothing was half-written
    expect((await h.request('GET', `/api/v1/sessions/${c.body.session.id}`, { token: h.fleetKey })).body.session.title).toBe('x');
  });

  it('bodies over 1 MiB → 413; metadata over 16 KiB → 413; nothing is created', async () => {
    const h = t();
    const before = (
      await h.store.kysely
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
    const huge = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, raw: JSON.stringify({ prompt: 'x'.repeat(1024 * 1024 + 10) }) });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe('body-too-large');
    const meta = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { custom_metadata: { blob: 'y'.repeat(17 * 1024) } } });
    expect(meta.status).toBe(413);
    expect(meta.body).toMatchObject({ error: 'custom-metadata-too-large', field: 'custom_metadata' });
    const after = (
      await h.store.kysely
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
    expect(Number(after)).toBe(Number(before));
  });

  it('unknown refs and routes → 404 with tokens; only clients may declare a genesis', async () => {
    const h = t();
    expect((await h.request('GET', '/api/v1/sessions/987654', { token: h.fleetKey })).body.error).toBe('session-not-found');
    expect((await h.request('GET', '/api/v1/sessions/nonsense', { token: h.fleetKey })).body.error).toBe('session-not-found');
    expect((await h.request('POST', '/api/v1/sessions/987654/archive', { token: h.fleetKey, body: {} })).status).toBe(404);
    expect((await h.request('GET', '/api/v1/nowhere', { token: h.fleetKey })).body.error).toBe('not-found');
    const g = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { genesis: 'schedule' } });
    expect(g.status).toBe(400);
    expect(g.body.error).toBe('genesis-not-allowed');
    const client = await h.clientKey(`sched${Date.now() % 100000}`);
    const ok = await h.request('POST', '/api/v1/sessions', { token: client, body: { genesis: 'schedule' } });
    expect(ok.body.session).toMatchObject({ genesis: 'schedule', scheduling_class: 'spot', creator: { kind: 'client' }, cause: { kind: 'client' } });
  });

  it('a fuzz over every route with random bodies and refs never answers 500 (property)', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'fuzz target', attach: true })).session;
    const routes: [string, string][] = [
      ['POST', '/api/v1/sessions'],
      ['PATCH', `/api/v1/sessions/${s.id}`],
      ['POST', `/api/v1/sessions/${s.id}/archive`],
      ['POST', `/api/v1/sessions/${s.id}/stop`],
      ['POST', `/api/v1/sessions/${s.id}/runtime`],
      ['POST', `/api/v1/sessions/${s.id}/transcript`],
      ['GET', `/api/v1/sessions/${s.id}/transcript/position`],
      ['POST', `/api/v1/sessions/${s.id}/children`],
      ['GET', '/api/v1/sessions'],
      ['GET', '/api/v1/session_deletions'],
    ];
    const ref = fc.oneof(fc.string({ maxLength: 60 }), fc.integer().map(String), fc.uuid(), fc.constant('#'), fc.constant('%'), fc.constant('uid:'));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof(fc.json(), fc.string({ maxLength: 200 }), fc.constant('{'), fc.constant('[]'), fc.constant('null')),
        ref,
        fc.dictionary(fc.constantFrom('limit', 'cursor', 'status', 'owner', 'parent', 'q', 'since', 'actor'), fc.string({ maxLength: 40 })),
        async ([method, path], raw, refText, query) => {
          const qs = new URLSearchParams(query).toString();
          const r1 = await h.request(method, `${path}${qs ? `?${qs}` : ''}`, { token: h.fleetKey, ...(method === 'GET' ? {} : { raw }) });
          expect(r1.status, `${method} ${path} ${raw}`).toBeLessThan(500);
          if (r1.status >= 400) expect(typeof r1.body?.error, r1.text).toBe('string');
          const r2 = await h.request('GET', `/api/v1/sessions/${encodeURIComponent(refText)}`, { token: h.fleetKey });
          expect(r2.status).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describeEachDialect('regressions found by the fuzz', (t) => {
  it('a deletion filter naming an unknown actor is an empty page, not a 500 (a JS boolean bound into SQLite)', async () => {
    const h = t();
    const r = await h.request('GET', '/api/v1/session_deletions?actor=nobody-by-this-key', { token: h.fleetKey });
    expect(r.status).toBe(200);
    expect(r.body.deletions).toEqual([]);
  });
});
