import { beforeAll, expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { setUserPassword } from '../../src/app/web-auth.js';
import { findUserByKey } from '../../src/store/users-repo.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { WebClient, textOf } from '../helpers/web-client.js';

/** `/supervisor/users` (docs/design/capture.md "The roster", docs/design/surfaces.md): admin only, every act through app/roster.ts. */

describeEachDialect(
  'roster pages (multi-user mode)',
  (t) => {
    let admin: WebClient;
    let person: WebClient;
    let personKey = '';
    beforeAll(async () => {
      const h = t();
      const adminKey = uniqueKey('admin');
      personKey = uniqueKey('person');
      await h.human(adminKey, { admin: true });
      await h.human(personKey);
      admin = new WebClient(h);
      await admin.signInWithLink(adminKey);
      person = new WebClient(h);
      await person.signInWithLink(personKey);
    });

    it('is for admins only: a signed-in non-admin gets 403 on every roster page and form', async () => {
      const h = t();
      for (const path of ['/supervisor/users', `/supervisor/users/${personKey}`]) {
        const r = await person.get(path);
        expect(r.status, path).toBe(403);
        expect(r.text).toContain('forbidden');
      }
      const add = await person.post('/supervisor/users', { key: uniqueKey('sneak') });
      expect(add.status).toBe(403);
      const tokens = await person.post(`/supervisor/users/${personKey}/tokens`, {});
      expect(tokens.status).toBe(403);
      expect((await h.request('GET', `/api/v1/sessions`, { token: h.fleetKey })).status).toBe(200);
      // the nav does not offer it
      expect((await person.get('/')).text).not.toContain('href="/supervisor/users"');
      expect((await admin.get('/')).text).toContain('href="/supervisor/users"');
    });

    it('lists, creates and edits people; a Slack-id collision is refused with a clear message', async () => {
      const h = t();
      const list = await admin.get('/supervisor/users');
      expect(list.status).toBe(200);
      expect(list.text).toContain(`data-user="${personKey}"`);
      const key = uniqueKey('carol');
      const created = await admin.post('/supervisor/users', {
        key,
        display_name: 'Carol C',
        email: 'carol@example.com',
        slack_user_ids: 'U0CAROL1, U0CAROL2',
        notes: 'Her word is final on deploys.',
      });
      expect(created.status).toBe(303);
      expect(created.location).toBe(`/supervisor/users/${key}?notice=added`);
      expect(await findUserByKey(h.store.kysely, key)).toMatchObject({
        displayName: 'Carol C',
        email: 'carol@example.com',
        slackUserIds: ['U0CAROL1', 'U0CAROL2'],
        notes: 'Her word is final on deploys.',
      });

      const other = uniqueKey('dave');
      const clash = await admin.post('/supervisor/users', { key: other, slack_user_ids: 'U0CAROL2' });
      expect(clash.status).toBe(409);
      expect(textOf(clash.text)).toContain(`Slack id U0CAROL2 already belongs to ${key} (Carol C)`);
      expect(await findUserByKey(h.store.kysely, other)).toBeNull();
      expect(clash.text).toContain(`value="${other}"`); // the form keeps what was typed

      const edited = await admin.post(`/supervisor/users/${key}`, { display_name: 'Carol Chen', email: '', slack_user_ids: 'U0CAROL1', notes: '' });
      expect(edited.status).toBe(303);
      expect(await findUserByKey(h.store.kysely, key)).toMatchObject({ displayName: 'Carol Chen', email: null, slackUserIds: ['U0CAROL1'], notes: null });
      const badSlack = await admin.post(`/supervisor/users/${key}`, { display_name: 'Carol Chen', slack_user_ids: 'not-a-slack-id' });
      expect(badSlack.status).toBe(400);
      expect(badSlack.text).toContain('is not a Slack user id');
    });

    it('renames a key with the note that nothing is orphaned', async () => {
      const h = t();
      const key = uniqueKey('erin');
      await admin.post('/supervisor/users', { key, display_name: 'Erin' });
      const newKey = uniqueKey('erin-new');
      const r = await admin.post(`/supervisor/users/${key}/rename`, { new_key: newKey });
      expect(r.status).toBe(303);
      const page = await admin.get(r.location!);
      expect(textOf(page.text)).toContain('Nothing is orphaned');
      expect(textOf(page.text)).toContain(`Renamed from ${key}`);
      expect(await findUserByKey(h.store.kysely, key)).toBeNull();
      const taken = await admin.post(`/supervisor/users/${newKey}/rename`, { new_key: personKey });
      expect(taken.status).toBe(409);
      expect(taken.text).toContain('user-exists');
    });

    it('issues a human token shown once, which works; revoking it stops it', async () => {
      const h = t();
      const key = uniqueKey('frank');
      await admin.post('/supervisor/users', { key });
      const issued = await admin.post(`/supervisor/users/${key}/tokens`, { label: 'laptop' });
      expect(issued.status).toBe(200);
      const token = /class="secret">(wrt_h_[A-Za-z0-9_-]+)</.exec(issued.text)![1]!;
      expect((await h.request('GET', '/api/v1/sessions', { token })).status).toBe(200);
      // shown once: the page never shows it again
      expect((await admin.get(`/supervisor/users/${key}`)).text).not.toContain(token);
      const id = /data-credential="(\d+)"/.exec(issued.text)![1]!;
      const revoked = await admin.post(`/supervisor/users/${key}/tokens/${id}/revoke`, {});
      expect(revoked.status).toBe(303);
      expect((await h.request('GET', '/api/v1/sessions', { token })).status).toBe(401);
      // a credential of someone else cannot be revoked through this person's page
      const theirs = await admin.post(`/supervisor/users/${personKey}/tokens/${id}/revoke`, {});
      expect(theirs.status).toBe(404);
    });

    it('multi-user sign-in: any roster human with a password; each sees only their own and unowned sessions', async () => {
      const h = t();
      const gina = uniqueKey('gina');
      await h.human(gina);
      await setUserPassword(h.ctx, systemCaller('cli'), gina, 'gina’s long password');
      const web = new WebClient(h);
      await web.get('/sign-in');
      const ok = await web.post('/sign-in', { key: gina, password: 'gina’s long password' });
      expect(ok.status).toBe(303);
      await web.get(ok.location!); // the page it lands on carries the signed-in CSRF token
      const mine = await web.post('/sessions/quick', { prompt: 'gina’s own session' });
      expect(mine.status).toBe(303);
      const theirs = (await h.create((await h.human(uniqueKey('hank'))).token, { title: 'hank’s private session' })).session;
      const home = await web.get('/?status=all');
      expect(home.text).toContain('gina’s own session');
      expect(home.text).not.toContain('hank’s private session');
      const hidden = await web.get(`/sessions/${theirs.id}`);
      expect(hidden.status).toBe(404);
      expect(hidden.text).toContain('session-not-found');
    });
  },
  { mode: 'multi-user' },
);
