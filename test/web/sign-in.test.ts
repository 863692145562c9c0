import { beforeAll, expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { SETTING_ADMIN_USER } from '../../src/app/bootstrap.js';
import { issueSetupCode, issueSignInLink, setUserPassword, SIGN_IN_LINK_TTL_MS } from '../../src/app/web-auth.js';
import { revokeIssuedToken } from '../../src/app/roster.js';
import { getSetting, setSetting } from '../../src/store/settings-repo.js';
import { findUserByKey } from '../../src/store/users-repo.js';
import { describeEachDialect, ManualClock, uniqueKey } from '../helpers/harness.js';
import { WebClient, textOf } from '../helpers/web-client.js';

/** docs/design/sessions.md "Web UI sign-in, always": first run, one-time links, passwords, sign-out. */

describeEachDialect('web UI first run (empty roster)', (t) => {
  it('every page leads to the first-run page, which needs the console’s one-time setup code', async () => {
    const h = t();
    const web = new WebClient(h);
    expect((await web.get('/')).location).toBe('/setup');
    expect((await web.get('/sign-in')).location).toBe('/setup');
    expect((await web.get('/supervisor/users')).location).toBe('/setup');
    const page = await web.get('/setup');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Setup code');

    const first = (await issueSetupCode(h.ctx))!;
    const current = (await issueSetupCode(h.ctx))!; // a restart prints a new one; the old one stops working
    const stale = await web.post('/setup', { code: first.code, key: 'root', display_name: 'Root' });
    expect(stale.status).toBe(401);
    expect(stale.text).toContain('setup-code-invalid');
    expect(await findUserByKey(h.store.kysely, 'root')).toBeNull();

    // a bad key is refused before the code is spent
    const badKey = await web.post('/setup', { code: current.code, key: 'Not A Key!' });
    expect(badKey.status).toBe(400);
    const short = await web.post('/setup', { code: current.code, key: 'root', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('at least 10 characters');

    // typed loosely (lower case, no hyphen) it still matches
    const ok = await web.post('/setup', {
      code: current.code.toLowerCase().replace('-', ''),
      key: 'root',
      display_name: 'Root Admin',
      password: 'correct horse battery',
    });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/');
    expect(web.cookies.has('warrant_session')).toBe(true);
    const user = (await findUserByKey(h.store.kysely, 'root'))!;
    expect(user).toMatchObject({ isAdmin: true, displayName: 'Root Admin', hasPassword: true });
    expect(await getSetting(h.store.kysely, SETTING_ADMIN_USER)).toBe('root');
    const home = await web.get('/');
    expect(home.status).toBe(200);
    expect(textOf(home.text)).toContain('Signed in as Root Admin');

    // once done, the page and the code are gone
    expect(await issueSetupCode(h.ctx)).toBeNull();
    expect((await new WebClient(h).get('/setup')).location).toBe('/sign-in');
    const again = await new WebClient(h).get('/setup');
    expect(again.status).toBe(303);
  });
});

const clock = new ManualClock();

describeEachDialect(
  'web UI sign-in, single-admin mode',
  (t) => {
    let admin = '';
    beforeAll(async () => {
      const h = t();
      admin = uniqueKey('admin');
      await h.human(admin, { admin: true, displayName: 'The Admin' });
      await setSetting(h.store.kysely, SETTING_ADMIN_USER, admin, clock.now().toISOString());
    });

    it('without the cookie a page redirects to sign-in and shows no data; htmx and the stream get 401', async () => {
      const h = t();
      const s = (await h.create(h.fleetKey, { title: 'quiet secret title' })).session;
      const web = new WebClient(h);
      for (const path of ['/', `/sessions/${s.id}`, `/sessions/${s.id}/provenance_panel`, '/supervisor/users']) {
        const r = await web.get(path);
        expect(r.status, path).toBe(303);
        expect(r.location).toBe(`/sign-in?next=${encodeURIComponent(path)}`);
        expect(r.text).not.toContain('quiet secret title');
      }
      const fragment = await web.get(`/sessions/${s.id}/status`, { htmx: true });
      expect(fragment.status).toBe(401);
      expect(fragment.headers.get('hx-redirect')).toBe('/sign-in');
      expect(fragment.text).not.toContain('quiet secret title');
      const signInPage = await web.get('/sign-in?next=%2Fsessions%2F1');
      expect(signInPage.status).toBe(200);
      expect(signInPage.text).toContain('warrant users login-link');
      expect(signInPage.text).not.toContain('quiet secret title');
    });

    it('a one-time link: the page names who it signs in without using it; the post signs in once', async () => {
      const h = t();
      const link = await issueSignInLink(h.ctx, systemCaller('cli'), null, { issuedVia: 'cli' });
      const web = new WebClient(h);
      const confirm = await web.get(`/sign-in/link/${link.secret}`);
      expect(confirm.status).toBe(200);
      expect(textOf(confirm.text)).toContain('Sign in as The Admin');
      expect(confirm.headers.get('referrer-policy')).toBe('same-origin');
      await web.get(`/sign-in/link/${link.secret}`); // looking twice does not use it
      const signIn = await web.post('/sign-in/link', { link: link.secret, next: '/sessions/new' });
      expect(signIn.status).toBe(303);
      expect(signIn.location).toBe('/sessions/new');
      const cookie = signIn.setCookies.find((c) => c.startsWith('warrant_session='))!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).not.toMatch(/Secure/);
      expect((await web.get('/')).status).toBe(200);

      const reuse = await new WebClient(h).request('GET', `/sign-in/link/${link.secret}`);
      expect(reuse.status).toBe(401);
      expect(reuse.text).toContain('sign-in-link-used');
      const other = new WebClient(h);
      await other.get('/sign-in');
      const reusePost = await other.post('/sign-in/link', { link: link.secret });
      expect(reusePost.status).toBe(401);
      expect(other.cookies.has('warrant_session')).toBe(false);
      const unknown = await other.post('/sign-in/link', { link: 'not-a-link' });
      expect(unknown.text).toContain('sign-in-link-invalid');
      // an open redirect is not possible through next
      const sneaky = await new WebClient(h).signInWithLink();
      expect(sneaky.location).toBe('/');
    });

    it('links expire, and secrets are stored only as digests', async () => {
      const h = t();
      const link = await issueSignInLink(h.ctx, systemCaller('cli'), null, { issuedVia: 'cli' });
      clock.advance(SIGN_IN_LINK_TTL_MS + 1000);
      const web = new WebClient(h);
      const expired = await web.get(`/sign-in/link/${link.secret}`);
      expect(expired.status).toBe(401);
      expect(expired.text).toContain('sign-in-link-expired');
      await web.signInWithLink();
      const links = JSON.stringify(await h.store.kysely.selectFrom('web_login_links').selectAll().execute());
      const tokens = JSON.stringify(await h.store.kysely.selectFrom('tokens').selectAll().execute());
      expect(links).not.toContain(link.secret);
      expect(tokens).not.toContain(web.cookies.get('warrant_session'));
    });

    it('single-admin mode signs in the single admin only', async () => {
      const h = t();
      const bob = uniqueKey('bob');
      await h.human(bob);
      await expect(issueSignInLink(h.ctx, systemCaller('cli'), bob, { issuedVia: 'cli' })).rejects.toMatchObject({ token: 'single-admin-mode' });
      await setUserPassword(h.ctx, systemCaller('cli'), bob, 'bob has a long password');
      const web = new WebClient(h);
      await web.get('/sign-in');
      const r = await web.post('/sign-in', { key: bob, password: 'bob has a long password' });
      expect(r.status).toBe(401);
      expect(r.text).toContain('sign-in-failed');
      expect(web.cookies.has('warrant_session')).toBe(false);
    });

    it('a password signs the admin in; a wrong one says nothing about who exists', async () => {
      const h = t();
      await setUserPassword(h.ctx, systemCaller('cli'), admin, 'a very long admin password');
      const web = new WebClient(h);
      await web.get('/sign-in');
      const wrong = await web.post('/sign-in', { key: admin, password: 'not the password' });
      const nobody = await web.post('/sign-in', { key: 'nobody-at-all', password: 'not the password' });
      expect(wrong.status).toBe(401);
      expect(nobody.status).toBe(401);
      const message = (html: string) => /data-error="sign-in-failed">([\s\S]*?)<\/div>/.exec(html)?.[1];
      expect(message(wrong.text)).toBe(message(nobody.text));
      const ok = await web.post('/sign-in', { key: admin, password: 'a very long admin password', next: '/supervisor/users' });
      expect(ok.status).toBe(303);
      expect(ok.location).toBe('/supervisor/users');
      expect((await web.get('/supervisor/users')).status).toBe(200);
      const stored = await h.store.kysely.selectFrom('users').select('password_hash').where('key', '=', admin).executeTakeFirstOrThrow();
      expect(stored.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
      expect(stored.password_hash).not.toContain('a very long admin password');
    });

    it('five wrong passwords for one key throttle that key (429, even with the right password) until they age out', async () => {
      const h = t();
      await setUserPassword(h.ctx, systemCaller('cli'), admin, 'the real long password');
      const web = new WebClient(h);
      await web.get('/sign-in');
      for (let i = 0; i < 5; i++) expect((await web.post('/sign-in', { key: admin, password: `guess number ${i}` })).status).toBe(401);
      const throttled = await web.post('/sign-in', { key: admin, password: 'the real long password' });
      expect(throttled.status).toBe(429);
      expect(throttled.text).toContain('data-error="sign-in-throttled"');
      expect(web.cookies.has('warrant_session')).toBe(false);
      // keys that do not exist are counted alike: the refusal reveals nothing about the roster
      for (let i = 0; i < 5; i++) expect((await web.post('/sign-in', { key: 'no-such-person', password: `guess ${i}` })).status).toBe(401);
      expect((await web.post('/sign-in', { key: 'no-such-person', password: 'x' })).status).toBe(429);
      // another key is not throttled by them
      expect((await web.post('/sign-in', { key: 'someone-else', password: 'x' })).status).toBe(401);
      // once the oldest failure is 15 minutes old, the right password signs in again
      clock.advance(15 * 60 * 1000 + 1000);
      const ok = await web.post('/sign-in', { key: admin, password: 'the real long password' });
      expect(ok.status).toBe(303);
      expect(web.cookies.has('warrant_session')).toBe(true);
    });

    it('signing out ends the browser’s sign-in; revoking its credential does too', async () => {
      const h = t();
      const web = new WebClient(h);
      await web.signInWithLink();
      const cookie = web.cookies.get('warrant_session')!;
      const out = await web.post('/sign-out');
      expect(out.status).toBe(303);
      expect(out.location).toBe('/sign-in');
      expect(out.setCookies.some((c) => c.startsWith('warrant_session=;'))).toBe(true);
      const replay = new WebClient(h);
      replay.cookies.set('warrant_session', cookie);
      expect((await replay.get('/')).status).toBe(303);

      const second = new WebClient(h);
      await second.signInWithLink();
      expect((await second.get('/')).status).toBe(200);
      const row = await h.store.kysely.selectFrom('tokens').select('id').where('kind', '=', 'web').orderBy('id', 'desc').executeTakeFirstOrThrow();
      await revokeIssuedToken(h.ctx, systemCaller('cli'), Number(row.id));
      expect((await second.get('/')).status).toBe(303);
    });

    it('a web cookie is not a bearer token, and a TLS request gets a Secure cookie', async () => {
      const h = t();
      const web = new WebClient(h);
      await web.signInWithLink();
      const asBearer = await h.request('GET', '/api/v1/sessions', { token: web.cookies.get('warrant_session')! });
      expect(asBearer.status).toBe(401);
      const tls = new WebClient(h);
      const link = await issueSignInLink(h.ctx, systemCaller('cli'), null, { issuedVia: 'cli' });
      await tls.get(`/sign-in/link/${link.secret}`, { base: 'https://localhost' });
      const r = await tls.post('/sign-in/link', { link: link.secret }, { base: 'https://localhost' });
      expect(r.status).toBe(303);
      expect(r.setCookies.find((c) => c.startsWith('warrant_session='))).toMatch(/Secure/);
    });
  },
  { clock },
);
