import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { SETTING_ADMIN_USER } from '../../src/app/bootstrap.js';
import { setSetting } from '../../src/store/settings-repo.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { WebClient } from '../helpers/web-client.js';

/** docs/design/sessions.md, docs/design/surfaces.md, docs/design/quality.md: CSRF on every form, the Host/Origin allowlist, security headers. */

async function countTitled(h: ReturnType<Parameters<Parameters<typeof describeEachDialect>[1]>[0]>, title: string): Promise<number> {
  const r = await h.request('GET', `/api/v1/sessions?q=${encodeURIComponent(title)}`, { token: h.fleetKey });
  return r.body.sessions.length;
}

describeEachDialect('web UI request protection', (t) => {
  let web: WebClient;
  beforeAll(async () => {
    const h = t();
    const admin = uniqueKey('admin');
    await h.human(admin, { admin: true });
    await setSetting(h.store.kysely, SETTING_ADMIN_USER, admin, new Date().toISOString());
    web = new WebClient(h);
    await web.signInWithLink();
  });

  it('every unsafe request needs this browser’s CSRF token: missing, wrong or another browser’s is refused', async () => {
    const h = t();
    const missing = await web.post('/sessions/quick', { prompt: 'csrf missing' }, { noCsrf: true });
    expect(missing.status).toBe(403);
    expect(missing.text).toContain('csrf-failed');
    const wrong = await web.post('/sessions/quick', { prompt: 'csrf wrong', _csrf: 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    const other = new WebClient(h);
    await other.signInWithLink();
    const foreign = await web.post('/sessions/quick', { prompt: 'csrf foreign', _csrf: other.csrf! });
    expect(foreign.status).toBe(403);
    for (const title of ['csrf missing', 'csrf wrong', 'csrf foreign']) expect(await countTitled(h, title)).toBe(0);
    // the archive action and sign-out are protected the same way
    const s = (await h.create(h.fleetKey, { title: 'csrf target' })).session;
    expect((await web.post(`/sessions/${s.id}/archive`, {}, { noCsrf: true })).status).toBe(403);
    expect((await web.post(`/sessions/${s.id}/delete`, {}, { noCsrf: true })).status).toBe(403);
    expect((await web.post('/sign-out', {}, { noCsrf: true })).status).toBe(403);
    expect((await h.request('GET', `/api/v1/sessions/${s.id}`, { token: h.fleetKey })).body.session.status).toBe('pending');
    // with the token (field, or header as htmx sends it) the same requests work
    expect((await web.post('/sessions/quick', { prompt: 'csrf with field' })).status).toBe(303);
    const viaHtmx = await web.post(`/sessions/${s.id}/archive`, {}, { htmx: true });
    expect(viaHtmx.status).toBe(200);
    expect(viaHtmx.text).toContain(`Archived #${s.id}.`);
    expect(await countTitled(h, 'csrf with field')).toBe(1);
  });

  it('the sign-in forms carry a pre-sign-in token: without the page’s cookie a post is refused', async () => {
    const h = t();
    const stranger = new WebClient(h);
    const r = await stranger.post('/sign-in', { key: 'whoever', password: 'whatever password' });
    expect(r.status).toBe(403);
    expect(r.text).toContain('csrf-failed');
  });

  it('checks Host and Origin against the allowlist (DNS rebinding)', async () => {
    const badHost = await web.get('/', { headers: { host: 'evil.example' } });
    expect(badHost.status).toBe(403);
    expect(badHost.text).toContain('host-not-allowed');
    const badOrigin = await web.post('/sessions/quick', { prompt: 'cross-site' }, { headers: { origin: 'http://evil.example' } });
    expect(badOrigin.status).toBe(403);
    expect(badOrigin.text).toContain('origin-not-allowed');
    const opaque = await web.post('/sessions/quick', { prompt: 'opaque origin' }, { headers: { origin: 'null' } });
    expect(opaque.status).toBe(403);
    const assets = await web.get('/assets/styles.css', { headers: { host: 'evil.example' } });
    expect(assets.status).toBe(403);
    // the server's own origin, with its port, is fine
    expect((await web.get('/', { headers: { host: 'localhost:7420' } })).status).toBe(200);
  });

  it('answers with a strict CSP and the other security headers; pages are not cached', async () => {
    const r = await web.get('/');
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(r.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('escapes every user-controlled string in HTML', async () => {
    const h = t();
    const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&';
    const s = (await h.create(h.fleetKey, { title: hostile, agent_root: '<b>root</b>' })).session;
    for (const path of ['/', `/sessions/${s.id}`, `/sessions/${s.id}/status`, `/sessions/${s.id}/provenance_panel`, '/ui/strip']) {
      const r = await web.get(path);
      expect(r.status, path).toBe(200);
      expect(r.text, path).not.toContain('<script>alert(1)');
      expect(r.text, path).not.toContain('<img src=x');
      expect(r.text, path).not.toContain('<b>root</b>');
      expect(r.text, path).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  it('serves the built assets without a credential, and nothing outside them', async () => {
    const anonymous = new WebClient(t());
    const js = await anonymous.get('/assets/warrant.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect(js.text).toContain('lineage-line');
    const again = await anonymous.get('/assets/warrant.js', { headers: { 'if-none-match': js.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect((await anonymous.get('/assets/htmx.min.js')).status).toBe(200);
    expect((await anonymous.get('/assets/sse.js')).status).toBe(200);
    expect((await anonymous.get('/assets/..%2Fcli%2Fmain.js')).status).toBe(404);
    expect((await anonymous.get('/assets/missing.js')).status).toBe(404);
  });

  it('a fuzz over the UI’s routes, forms and queries never answers 500 (property)', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'web fuzz target' })).session;
    const text = fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('', '#', '%', '#0', '-1', 'uid:', '../..', '\u0000', '9'.repeat(30)));
    const gets = (ref: string, q: string) => [
      `/sessions/${encodeURIComponent(ref)}`,
      `/sessions/${encodeURIComponent(ref)}/status`,
      `/sessions/${encodeURIComponent(ref)}/provenance_panel`,
      `/sessions/${encodeURIComponent(ref)}/timeline?cursor=${encodeURIComponent(q)}`,
      `/sessions/${encodeURIComponent(ref)}/transcript?before=${encodeURIComponent(q)}`,
      `/ui/sessions?status=${encodeURIComponent(q)}&owner=${encodeURIComponent(q)}&q=${encodeURIComponent(q)}&parent=${encodeURIComponent(ref)}&cursor=${encodeURIComponent(q)}`,
      `/?deleted=${encodeURIComponent(q)}&cursor=${encodeURIComponent(q)}`,
      `/supervisor/users/${encodeURIComponent(ref)}`,
      `/sign-in/link/${encodeURIComponent(ref)}`,
      `/sign-in?next=${encodeURIComponent(q)}`,
    ];
    const posts = (ref: string) => [
      '/sessions',
      '/sessions/quick',
      `/sessions/${encodeURIComponent(ref)}/archive`,
      `/sessions/${s.id}/stop`,
      '/supervisor/users',
      `/supervisor/users/${encodeURIComponent(ref)}`,
      `/supervisor/users/${encodeURIComponent(ref)}/rename`,
      `/supervisor/users/${encodeURIComponent(ref)}/tokens/${encodeURIComponent(ref)}/revoke`,
      '/sign-in',
      '/sign-in/link',
    ];
    const fields = fc.dictionary(
      fc.constantFrom(
        'prompt',
        'title',
        'parent',
        'agent_root',
        'model',
        'key',
        'new_key',
        'display_name',
        'email',
        'slack_user_ids',
        'notes',
        'password',
        'link',
        'next',
      ),
      text,
    );
    await fc.assert(
      fc.asyncProperty(text, text, fields, fc.nat(), async (ref, q, form, pick) => {
        const get = gets(ref, q)[pick % 10]!;
        const r1 = await web.get(get, { htmx: pick % 2 === 0 });
        expect(r1.status, `GET ${get}`).toBeLessThan(500);
        const post = posts(ref)[pick % 10]!;
        const r2 = await web.post(post, form, { htmx: pick % 3 === 0 });
        expect(r2.status, `POST ${post} ${JSON.stringify(form)}`).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });
});
