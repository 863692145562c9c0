import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { issueSignInLink } from '../../src/app/web-auth.js';
import { changeSetting } from '../../src/app/settings.js';
import { ASSET_DIR } from '../../src/web/assets.js';
import { openHarness, type Harness } from '../helpers/harness.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Debian's Chromium, driven by playwright-core (07: never a downloaded browser). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (the browser tests never download one)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface WebServer {
  h: Harness;
  url: string;
  adminKey: string;
  close(): Promise<void>;
}

/**
 * The real service (REST, SSE, MCP, web UI) on a real listening socket, over a fresh SQLite
 * store with a single admin. The built assets must exist (`npm run test:browser` builds).
 */
export async function startWebServer(adminKey = 'alice'): Promise<WebServer> {
  if (!existsSync(`${ASSET_DIR}/warrant.js`)) throw new Error('dist/web/assets is not built: run `npm run build` (npm run test:browser does)');
  const h = await openHarness('sqlite');
  await h.human(adminKey, { admin: true, displayName: 'Alice Admin' });
  // through the settings use case: the capture-coverage log then says when web capture began
  await changeSetting(h.ctx, systemCaller('cli'), 'admin_user', adminKey);
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: h.service.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    h,
    url: `http://127.0.0.1:${port}`,
    adminKey,
    async close() {
      // live streams hold connections open: close them so the server can stop
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await h.close();
    },
  };
}

/** Signs the context in through a real one-time link and its confirmation button. */
export async function signIn(server: WebServer, page: Page): Promise<void> {
  const link = await issueSignInLink(server.h.ctx, systemCaller('cli'), null, { issuedVia: 'cli' });
  await page.goto(`${server.url}/sign-in/link/${link.secret}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/`);
}

export async function signedInPage(
  server: WebServer,
  browser: Browser,
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
  const page = await context.newPage();
  await signIn(server, page);
  return { context, page };
}

/** A session created over REST with the fleet key (as a supervisor would). */
export async function createSession(server: WebServer, body: Record<string, unknown>): Promise<{ id: number; title: string }> {
  const res = await fetch(`${server.url}/api/v1/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.h.fleetKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { session: { id: number; title: string } }).session;
}

export interface LinePath {
  parent: number;
  child: number;
  /** the path's ends in page coordinates */
  start: { x: number; y: number };
  end: { x: number; y: number };
}

/** Every drawn `path.lineage-line`, with its endpoints converted to page coordinates. */
export async function lineagePaths(page: Page): Promise<LinePath[]> {
  return page.evaluate(() => {
    const svg = document.querySelector('[data-lineage-layer]')!;
    const origin = svg.getBoundingClientRect();
    return [...document.querySelectorAll('path.lineage-line')].map((p) => {
      const n = (p.getAttribute('d') ?? '').match(/-?\d+(\.\d+)?/g)!.map(Number);
      return {
        parent: Number(p.getAttribute('data-parent-tab')),
        child: Number(p.getAttribute('data-child-tab')),
        start: { x: origin.left + n[0]!, y: origin.top + n[1]! },
        end: { x: origin.left + n[n.length - 2]!, y: origin.top + n[n.length - 1]! },
      };
    });
  });
}

/** The bottom centre of a strip tab, in page coordinates. */
export async function tabAnchor(page: Page, id: number): Promise<{ x: number; y: number }> {
  const box = (await page.locator(`[data-strip-scroller] [data-tab-id="${id}"]`).boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height };
}

/** Lets the coalesced redraw run: two animation frames after the last change. */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))));
}

/** Starts a server and a browser before a file's tests (handing them over) and closes both after. */
export function withServerAndBrowser(use: (server: WebServer, browser: Browser) => void): void {
  let server: WebServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchBrowser();
    use(server, browser);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
}
