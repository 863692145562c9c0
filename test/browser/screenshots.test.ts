import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeUncleEdge } from '../helpers/lineage.js';
import { launchBrowser, lineagePaths, settled, signIn, startWebServer, type WebServer } from './browser-harness.js';

/**
 * Screenshots of the home page and a session page at desktop and phone widths, written to
 * docs/screenshots/ (the README shows one of each). A small fleet like the one in the docs.
 */
const OUT = resolve(import.meta.dirname, '../../docs/screenshots');
let server: WebServer;
let browser: Browser;
let router = 0;

async function create(body: Record<string, unknown>): Promise<number> {
  const res = await fetch(`${server.url}/api/v1/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.h.fleetKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(await res.text());
  return ((await res.json()) as { session: { id: number } }).session.id;
}

beforeAll(async () => {
  server = await startWebServer();
  browser = await launchBrowser();
  router = await create({ title: 'Triage the flaky deploy', agent_root: 'router', attach: true });
  const logs = await create({ title: 'Read the CI logs', agent_root: 'worker', parent_session_id: router, attach: true });
  await create({ title: 'Bisect the retry change', agent_root: 'worker', parent_session_id: router });
  const hotfix = await create({ title: 'Ship the hotfix', agent_root: 'router' });
  const patch = await create({ title: 'Patch the retry loop', agent_root: 'worker', parent_session_id: hotfix, attach: true });
  // the router also directs the patch (an uncle edge), and a human asked the log reader something
  await writeUncleEdge(server.h, router, patch);
  const { token } = await server.h.human('bob', { displayName: 'Bob Builder' });
  const asked = await fetch(`${server.url}/api/v1/sessions/${logs}/follow_up`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'Check whether the retry change landed before the flakes started.' }),
  });
  if (asked.status >= 300) throw new Error(await asked.text());
  await create({ title: 'Summarize yesterday’s incidents', agent_root: 'claude-code' });
  await create({ title: 'Update the on-call runbook', agent_root: 'worker', parent_session_id: hotfix });
  mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const VIEWPORTS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, colorScheme: 'light' as const },
  { name: 'phone', viewport: { width: 390, height: 844 }, colorScheme: 'dark' as const },
];

describe('screenshots for the docs', () => {
  for (const v of VIEWPORTS) {
    it(`home and session pages at ${v.name} width`, async () => {
      const context = await browser.newContext({ viewport: v.viewport, colorScheme: v.colorScheme, reducedMotion: 'reduce', deviceScaleFactor: 1 });
      const page = await context.newPage();
      try {
        await signIn(server, page);
        await page.goto(`${server.url}/`);
        await page.locator(`[data-strip-scroller] [data-tab-id="${router}"]`).waitFor();
        await settled(page);
        // lines on desktop only (docs/design/surfaces.md)
        expect((await lineagePaths(page)).length > 0).toBe(v.name === 'desktop');
        const home = join(OUT, `home-${v.name}.png`);
        await page.screenshot({ path: home, fullPage: v.name === 'phone' });
        await page.goto(`${server.url}/sessions/${router}`);
        await page.locator('#provenance-panel [data-uncle-id]').first().waitFor();
        await page.locator('#provenance-panel [data-scope="elsewhere"]').first().waitFor();
        const session = join(OUT, `session-${v.name}.png`);
        await page.screenshot({ path: session, fullPage: true });
        for (const file of [home, session]) expect(statSync(file).size).toBeGreaterThan(10_000);
        // nothing overflows the phone's width (usable on a phone, docs/design/surfaces.md)
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      } finally {
        await context.close();
      }
    });
  }
});
