import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, signedInPage, type WebServer, withServerAndBrowser } from './browser-harness.js';

/** docs/design/surfaces.md "Human input forms" in a real Chromium: what a human types is recorded as theirs. */
let server: WebServer;
let browser: Browser;
withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

interface Entry {
  session_id: number;
  entry_point: string;
  content: string;
  withdrawn_at: string | null;
}

async function recordedOn(id: number): Promise<Entry[]> {
  const res = await fetch(`${server.url}/api/v1/sessions/${id}/provenance`, { headers: { authorization: `Bearer ${server.h.fleetKey}` } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { human_messages: { entries: Entry[] } };
  return body.human_messages.entries.filter((e) => e.session_id === id).reverse();
}

describe('human input forms in a browser', () => {
  it('a follow-up typed on the session page is delivered and recorded; a withdrawn enqueued message stays recorded', async () => {
    const s = await createSession(server, { title: 'browser input target' });
    const { context, page } = await signedInPage(server, browser);
    page.on('dialog', (d) => void d.accept());
    try {
      await page.goto(`${server.url}/sessions/${s.id}`);
      const box = page.getByLabel(`Your message to #${s.id}`);
      await box.fill('Also run the migration tests, please.');
      await page.getByRole('button', { name: 'Follow up', exact: true }).click();
      await page.locator('#input-result [data-input-result="follow_up"]').waitFor();
      expect(await box.inputValue()).toBe('');
      expect(await recordedOn(s.id)).toMatchObject([{ entry_point: 'web_ui.follow_up', content: 'Also run the migration tests, please.', withdrawn_at: null }]);
      // the open page's panel shows it as a `here` message without a reload
      const here = page.locator('#provenance-panel [data-scope="here"][data-entry-point="web_ui.follow_up"]');
      await here.waitFor();
      expect(await here.locator('.human-words').innerText()).toBe('Also run the migration tests, please.');
      expect(await page.locator('#provenance-panel .human-counts').getAttribute('data-here')).toBe('1');

      await box.fill('Then summarize what changed.');
      await page.getByRole('button', { name: 'Enqueue', exact: true }).click();
      const item = page.locator('#enqueued-list .enqueued-item', { hasText: 'Then summarize what changed.' });
      await item.waitFor();
      await box.fill('a draft being typed');
      await item.getByRole('button', { name: 'Withdraw' }).click(); // after the confirm (accepted above)
      await page.locator('#input-result [data-input-result="withdraw"]').waitFor();
      await item.waitFor({ state: 'detached' });
      expect(await box.inputValue()).toBe('a draft being typed');
      expect((await recordedOn(s.id)).map((e) => [e.entry_point, e.content, e.withdrawn_at !== null])).toEqual([
        ['web_ui.follow_up', 'Also run the migration tests, please.', false],
        ['web_ui.enqueued_message', 'Then summarize what changed.', true],
      ]);
    } finally {
      await context.close();
    }
  });

  it('the chat bubble opens from the keyboard, closes on Escape, and on a phone starts a router session with only the words recorded', async () => {
    const viewed = await createSession(server, { title: 'the page the human looked at' });
    const { context, page } = await signedInPage(server, browser, { width: 390, height: 844 });
    try {
      await page.goto(`${server.url}/sessions/${viewed.id}`);
      const toggle = page.locator('details[data-chat-bubble] > summary');
      await toggle.focus();
      await page.keyboard.press('Enter');
      const words = page.getByRole('textbox', { name: 'Ask a router session' });
      await words.waitFor();
      expect(await words.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.keyboard.press('Escape');
      await words.waitFor({ state: 'hidden' });
      expect(await toggle.evaluate((el) => el === document.activeElement)).toBe(true);

      // usable on a phone: the open panel fits the viewport
      await page.keyboard.press('Enter');
      const box = (await page.locator('details[data-chat-bubble] .chat-panel').boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      await words.fill('Why is this one still pending?');
      await page.getByRole('button', { name: 'Start router session' }).click();
      await page.getByRole('heading', { level: 1, name: 'Why is this one still pending?' }).waitFor();
      const id = Number(/\/sessions\/(\d+)$/.exec(new URL(page.url()).pathname)![1]);
      expect(await recordedOn(id)).toMatchObject([{ entry_point: 'web_ui.chat_bubble', content: 'Why is this one still pending?' }]);
      const prompt = await server.h.store.kysely.selectFrom('session_prompts').select('prompt').where('session_id', '=', id).executeTakeFirstOrThrow();
      expect(prompt.prompt).toContain(`session #${viewed.id} “the page the human looked at”`);
    } finally {
      await context.close();
    }
  });
});
