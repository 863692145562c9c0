import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { uniqueKey } from '../helpers/harness.js';
import { liveSession } from '../helpers/lineage.js';
import { leaseAndAck, sent } from '../helpers/messages.js';
import { signedInPage, type WebServer, withServerAndBrowser } from './browser-harness.js';

/** A session's page in a real Chromium: its agent messages, threaded, with an undelivered one's reason, and a timeline in words. */
let server: WebServer;
let browser: Browser;
withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

describe('agent messages on the session page', () => {
  it('shows a message and its reply threaded under it, a refusal in words, and a timeline with no raw JSON', async () => {
    const h = server.h;
    const admin = await h.human(uniqueKey('deleter'), { admin: true });
    const a = await liveSession(h, h.fleetKey, { title: 'asking session' });
    const b = await liveSession(h, h.fleetKey, { title: 'answering session' });
    const question = await sent(h, a.token, { to: b.id, payload: 'Is the migration safe to run?' });
    await leaseAndAck(h, b);
    const target = (await h.create(h.fleetKey, { title: 'deleted before reading' })).session;
    const lost = await sent(h, a.token, { to: target.id, payload: 'You will never read this.' });
    expect((await h.request('DELETE', `/api/v1/sessions/${target.id}`, { token: admin.token })).status).toBe(200);

    const { context, page } = await signedInPage(server, browser);
    try {
      await page.goto(`${server.url}/sessions/${a.id}`);
      const panel = page.locator('#agent-messages');
      const asked = panel.locator(`[data-message-id="${question.id}"]`);
      await asked.waitFor();
      expect(await asked.locator('.message-head').first().innerText()).toContain(`Sent to session #${b.id} “answering session”`);
      expect(await asked.locator('.message-payload').first().innerText()).toBe('Is the migration safe to run?');
      await asked.locator(`.message-head a[href="/sessions/${b.id}"]`).first().waitFor();

      // wait until the page's live stream is up: a title change made after it connects shows without a reload
      for (let attempt = 1; ; attempt++) {
        const title = `asking session, live ${attempt}`;
        expect((await h.request('PATCH', `/api/v1/sessions/${a.id}`, { token: h.fleetKey, body: { title } })).status).toBe(200);
        const shown = await page
          .locator('#session-title', { hasText: title })
          .waitFor({ timeout: 2_000 })
          .then(() => true)
          .catch(() => false);
        if (shown) break;
        if (attempt === 10) throw new Error('the page never followed a live event');
      }
      // the reply arrives while the page is open and lands under the message it answers
      const reply = await sent(h, b.token, { to: a.id, reply_to: question.id, payload: 'Yes, after the backup finishes.' });
      const threaded = page.locator(`#agent-messages [data-message-id="${question.id}"] .message-replies [data-message-id="${reply.id}"]`);
      await threaded.waitFor({ timeout: 15_000 });
      expect(await threaded.locator('.message-payload').innerText()).toBe('Yes, after the backup finishes.');
      expect(await threaded.locator('.message-head').innerText()).toContain(`Reply from session #${b.id}`);
      // a reply is never listed on its own beside the thread
      expect(await page.locator(`#agent-messages > ol > [data-message-id="${reply.id}"]`).count()).toBe(0);

      const refused = page.locator(`#agent-messages [data-message-id="${lost.id}"]`);
      expect(await refused.getAttribute('data-message-state')).toBe('failed');
      expect(await refused.locator('.message-refusal').innerText()).toBe('Not delivered: its target session was deleted before acknowledging it.');

      // the timeline on the same page reads as sentences: no JSON, no snake_case event names
      const timeline = await page.locator('#timeline').innerText();
      const types = await page.locator('#timeline [data-event-type]').evaluateAll((els) => els.map((e) => e.getAttribute('data-event-type') ?? ''));
      expect(types).toEqual(expect.arrayContaining(['created', 'attached', 'token_minted', 'inbox_item_sent']));
      expect(timeline).toContain('sent an agent message to another session');
      expect(timeline).toContain('minted a session token for the runtime');
      expect(timeline).not.toContain('{"');
      expect(timeline).not.toContain('":');
      for (const type of types.filter((t) => t.includes('_'))) expect(timeline).not.toContain(type);
      expect(timeline).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    } finally {
      await context.close();
    }
  });
});
