import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, signedInPage, type WebServer, withServerAndBrowser } from './browser-harness.js';

/**
 * One live connection per browser (docs/api.md "Live refresh"): every tab shares the stream a
 * SharedWorker holds, so more tabs than the browser's six connections per host all stay live.
 */
let server: WebServer;
let browser: Browser;
withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const TABS = 12;

describe('live refresh across many tabs', () => {
  it('12 tabs on session pages of one lineage share one stream, and each shows the change', async () => {
    const root = await createSession(server, { title: 'tabs root' });
    const sessions = [root];
    for (let i = 1; i < TABS; i++) sessions.push(await createSession(server, { title: `tab ${i}`, parent_session_id: root.id }));
    const { context, page: first } = await signedInPage(server, browser);
    try {
      const pages: Page[] = [first];
      for (let i = 1; i < TABS; i++) pages.push(await context.newPage());
      for (let i = 0; i < TABS; i++) {
        await pages[i]!.goto(`${server.url}/sessions/${sessions[i]!.id}`);
        // the panel loaded: the tab's requests got through beside the live connection
        await pages[i]!.locator('#provenance-panel').waitFor();
      }
      // every tab registered with the shared stream, which watches all twelve panels
      await expect.poll(() => server.h.ctx.live.openStreams, { timeout: 20_000 }).toBe(1);
      await expect.poll(() => server.h.ctx.hierarchies.viewerCount, { timeout: 20_000 }).toBe(TABS);

      const renamed = await fetch(`${server.url}/api/v1/sessions/${root.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${server.h.fleetKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'tabs root renamed' }),
      });
      expect(renamed.status).toBe(200);
      for (const [i, page] of pages.entries()) {
        // the root is in every tab's hierarchy: each panel repaints with the new title
        await page.locator('#provenance-panel', { hasText: 'tabs root renamed' }).waitFor({ timeout: 20_000 });
        expect(await page.locator(`#provenance-panel [data-node-id="${sessions[i]!.id}"]`).count()).toBe(1);
      }
      // still one connection, however many tabs
      expect(server.h.ctx.live.openStreams).toBe(1);

      // a tab that closes leaves the others live
      await pages.pop()!.close();
      const retitled = await fetch(`${server.url}/api/v1/sessions/${root.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${server.h.fleetKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'tabs root again' }),
      });
      expect(retitled.status).toBe(200);
      for (const page of pages) await page.locator('#provenance-panel', { hasText: 'tabs root again' }).waitFor({ timeout: 20_000 });
    } finally {
      await context.close();
    }
  });
});
