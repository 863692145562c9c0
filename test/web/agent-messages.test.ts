import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { liveSession, type Live } from '../helpers/lineage.js';
import { leaseAndAck, sent } from '../helpers/messages.js';
import { WebClient, textOf } from '../helpers/web-client.js';

/**
 * The session page's agent messages (docs/messages.md): each with its direction and the other
 * session, replies under the message they answer, an undelivered one saying why — and its words
 * only for a reader who may read the message (sender, target, admin), never for another viewer.
 */

/** The HTML of one message's list item, up to where its own item closes (replies included). */
function messageItem(html: string, id: string): string {
  const start = html.indexOf(`data-message-id="${id}"`);
  expect(start, `message ${id} on the page`).toBeGreaterThan(-1);
  const open = html.lastIndexOf('<li', start);
  let depth = 0;
  const tags = /<li\b|<\/li>/g;
  tags.lastIndex = open;
  for (let m = tags.exec(html); m; m = tags.exec(html)) {
    depth += m[0] === '</li>' ? -1 : 1;
    if (depth === 0) return html.slice(open, m.index + 5);
  }
  throw new Error('unclosed message item');
}

describeEachDialect(
  'web UI agent messages (multi-user mode)',
  (t) => {
    let admin: WebClient;
    let reader: WebClient;
    let a: Live;
    let b: Live;
    let original: { id: string };
    let reply: { id: string };
    let doomed: { id: string };
    beforeAll(async () => {
      const h = t();
      const adminKey = uniqueKey('admin');
      const readerKey = uniqueKey('nora');
      const adminHuman = await h.human(adminKey, { admin: true });
      await h.human(readerKey);
      admin = new WebClient(h);
      await admin.signInWithLink(adminKey);
      reader = new WebClient(h);
      await reader.signInWithLink(readerKey);
      // unowned sessions: every roster human sees them, only an admin may read their messages
      a = await liveSession(h, h.fleetKey, { title: 'asker' });
      b = await liveSession(h, h.fleetKey, { title: 'answerer' });
      original = await sent(h, a.token, { to: b.id, payload: 'words of the question 7f3a' });
      await leaseAndAck(h, b);
      reply = await sent(h, b.token, { to: a.id, reply_to: original.id, payload: 'words of the answer 9c1e' });
      const target = (await h.create(h.fleetKey, { title: 'soon deleted' })).session;
      doomed = await sent(h, a.token, { to: target.id, payload: 'words never read 4b2d' });
      expect((await h.request('DELETE', `/api/v1/sessions/${target.id}`, { token: adminHuman.token })).status).toBe(200);
    });

    it('lists what the session sent and received, the reply threaded under the message it answers', async () => {
      const page = await admin.get(`/sessions/${a.id}`);
      expect(page.status).toBe(200);
      const item = messageItem(page.text, original.id);
      expect(textOf(item)).toContain(`Sent to session #${b.id} “answerer”`);
      expect(item).toContain(`href="/sessions/${b.id}"`);
      expect(item).toContain('words of the question 7f3a');
      // the reply sits inside the original's item, in its replies list
      const replies = item.slice(item.indexOf('class="message-replies"'));
      expect(item.indexOf('class="message-replies"')).toBeGreaterThan(-1);
      expect(replies).toContain(`data-message-id="${reply.id}"`);
      expect(textOf(messageItem(page.text, reply.id))).toContain(`Reply from session #${b.id}`);
      expect(replies).toContain('words of the answer 9c1e');
      // the other end sees the same exchange from its side
      const other = messageItem((await admin.get(`/sessions/${b.id}`)).text, original.id);
      expect(textOf(other)).toContain(`Received from session #${a.id} “asker”`);
      expect(other).toContain(`data-message-id="${reply.id}"`);
    });

    it('a message that never reached its target says why, in words', async () => {
      const item = messageItem((await admin.get(`/sessions/${a.id}`)).text, doomed.id);
      expect(item).toContain('data-message-state="failed"');
      expect(textOf(item)).toContain('Not delivered: its target session was deleted before acknowledging it.');
    });

    it('a viewer who may not read the messages sees that they exist, never their words', async () => {
      for (const path of [`/sessions/${a.id}`, `/sessions/${a.id}/messages`, `/sessions/${b.id}`]) {
        const res = await reader.get(path, { htmx: path.endsWith('/messages') });
        expect(res.status, path).toBe(200);
        expect(res.text, path).toContain(`data-message-id="${original.id}"`);
        for (const words of ['words of the question 7f3a', 'words of the answer 9c1e', 'words never read 4b2d']) expect(res.text, path).not.toContain(words);
        expect(res.text, path).toContain('payload-withheld');
      }
      // and the admin's fragment does carry them (the refresh the panel uses)
      const fragment = await admin.get(`/sessions/${a.id}/messages`, { htmx: true });
      expect(fragment.text).toContain('words of the question 7f3a');
      expect(fragment.text).toContain('id="agent-messages"');
    });

    it('a session with no messages says so', async () => {
      const h = t();
      const lone = (await h.create(h.fleetKey, { title: 'quiet' })).session;
      expect(textOf((await admin.get(`/sessions/${lone.id}`)).text)).toContain('This session has sent and received no agent messages.');
    });
  },
  { mode: 'multi-user' },
);
