import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeUncleEdge } from '../helpers/lineage.js';
import { launchBrowser, lineagePaths, settled, signIn, startWebServer, type WebServer } from './browser-harness.js';
import { brokenHeaderCells, controlsCovered, linesCrossing, misalignedFields, overflowsSideways } from './layout-checks.js';

/**
 * Screenshots of the home page, a session page, the roster and the device settings at desktop
 * and phone widths, written to docs/screenshots/ (the README shows some), with the layout
 * checks that keep them looking right (./layout-checks.ts). A small fleet like the one in the docs.
 */
const OUT = resolve(import.meta.dirname, '../../docs/screenshots');
let server: WebServer;
let browser: Browser;
let router = 0;

async function created(body: Record<string, unknown>): Promise<{ session: { id: number }; session_token?: string }> {
  const res = await fetch(`${server.url}/api/v1/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.h.fleetKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json()) as { session: { id: number }; session_token?: string };
}

async function create(body: Record<string, unknown>): Promise<number> {
  return (await created(body)).session.id;
}

/** The session's runtime leases what is in its inbox and acknowledges it. */
async function takeInbox(id: number, token: string): Promise<void> {
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api/v1/sessions/${id}/inbox/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (res.status !== 200) throw new Error(await res.text());
    return (await res.json()) as { items: { id: number }[] };
  };
  const leased = await call('lease', {});
  await call('ack', { ids: leased.items.map((i) => i.id) });
}

/** An agent message from one live session to another, as its runtime sends it (its own token). */
async function sendMessage(token: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(await res.text());
  return ((await res.json()) as { message: { id: string } }).message.id;
}

beforeAll(async () => {
  server = await startWebServer();
  browser = await launchBrowser();
  const routerLive = await created({ title: 'Triage the flaky deploy', agent_root: 'router', attach: true });
  router = routerLive.session.id;
  const logsLive = await created({ title: 'Read the CI logs', agent_root: 'worker', parent_session_id: router, attach: true });
  const logs = logsLive.session.id;
  // the router asks the log reader a question and gets its answer (the session page's agent messages)
  const question = await sendMessage(routerLive.session_token!, { to: logs, payload: 'Which test flakes most since Monday?' });
  await takeInbox(logs, logsLive.session_token!);
  await sendMessage(logsLive.session_token!, { to: router, reply_to: question, payload: 'deploy-smoke: 7 of the last 20 runs, all after the retry change.' });
  await create({ title: 'Bisect the retry change', agent_root: 'worker', parent_session_id: router });
  const hotfix = await create({ title: 'Ship the hotfix', agent_root: 'router' });
  const patch = await create({ title: 'Patch the retry loop', agent_root: 'worker', parent_session_id: hotfix, attach: true });
  // the router also directs the patch (an uncle edge), and a human asked the log reader something
  await writeUncleEdge(server.h, router, patch);
  const { token } = await server.h.human('bob', { displayName: 'Bob Builder' });
  await server.h.human('carol', {
    displayName: 'Carol Oncall',
    slack: ['U012ABCDEF', 'U034GHIJKL'],
    notes: 'On call this week; her word is final on deploys.',
  });
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

type Shot = (typeof VIEWPORTS)[number];

async function shoot(page: Page, v: Shot, name: string, fullPage: boolean): Promise<void> {
  const file = join(OUT, `${name}-${v.name}.png`);
  await page.screenshot({ path: file, fullPage });
  expect(statSync(file).size).toBeGreaterThan(10_000);
}

/** On a phone: nothing overflows sideways, and the Ask button covers no field at the top or the bottom of the page. */
async function phoneChecks(page: Page, v: Shot): Promise<void> {
  expect.soft(await overflowsSideways(page)).toBe(false);
  if (v.name !== 'phone') return;
  for (const y of [0, 1e6]) {
    await page.evaluate((y) => window.scrollTo(0, y), y);
    expect.soft(await controlsCovered(page, '.chat-toggle'), `the Ask button at scroll ${y}`).toEqual([]);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
}

describe('screenshots for the docs', () => {
  for (const v of VIEWPORTS) {
    it(`home, session, roster and settings at ${v.name} width`, async () => {
      const context = await browser.newContext({ viewport: v.viewport, colorScheme: v.colorScheme, reducedMotion: 'reduce', deviceScaleFactor: 1 });
      const page = await context.newPage();
      try {
        await signIn(server, page);
        await page.goto(`${server.url}/`);
        await page.locator(`[data-strip-scroller] [data-tab-id="${router}"]`).waitFor();
        await settled(page);
        // lines on desktop only (docs/design/surfaces.md), and they stay in the strip's room: never over the quick prompt
        expect((await lineagePaths(page)).length > 0).toBe(v.name === 'desktop');
        expect.soft(await linesCrossing(page, '#quick-heading')).toEqual([]);
        expect.soft(await linesCrossing(page, 'form[action="/sessions/quick"]')).toEqual([]);
        expect.soft(await misalignedFields(page, 'form[action="/sessions/quick"], #session-filters')).toEqual([]);
        // the header is one row: on a phone the tools fold into a menu, on a desktop they show inline
        const header = (await page.locator('.site-header').boundingBox())!;
        const link = (await page.locator('.site-nav a').first().boundingBox())!;
        expect.soft(header.height, 'header height').toBeLessThanOrEqual(link.height + 32);
        expect.soft(await page.locator('[data-theme-toggle]').isVisible(), 'the theme button shows inline').toBe(v.name === 'desktop');
        await phoneChecks(page, v);
        await shoot(page, v, 'home', v.name === 'phone');

        await page.goto(`${server.url}/sessions/${router}`);
        await page.locator('#provenance-panel [data-uncle-id]').first().waitFor();
        await page.locator('#provenance-panel [data-scope="elsewhere"]').first().waitFor();
        expect.soft(await misalignedFields(page, 'main form')).toEqual([]);
        await phoneChecks(page, v);
        await shoot(page, v, 'session', true);
        // the other input form: a new session's fields side by side
        await page.goto(`${server.url}/sessions/new`);
        expect.soft(await misalignedFields(page, 'main form')).toEqual([]);
        await phoneChecks(page, v);

        await page.goto(`${server.url}/supervisor/users`);
        // column names, in the header row (a desktop) or in each stacked card (a phone), are never broken mid-word
        expect
          .soft(
            await page
              .locator(v.name === 'phone' ? 'table.roster .cell-label' : 'table.roster th')
              .first()
              .isVisible(),
            'column names show',
          )
          .toBe(true);
        expect.soft(await brokenHeaderCells(page, 'table.roster th, table.roster .cell-label')).toEqual([]);
        expect.soft(await misalignedFields(page, 'form[action="/supervisor/users"]')).toEqual([]);
        await phoneChecks(page, v);
        await shoot(page, v, 'roster', true);
        await page.goto(`${server.url}/supervisor/users/carol`);
        expect.soft(await misalignedFields(page, 'main form')).toEqual([]);
        await phoneChecks(page, v);
        await shoot(page, v, 'roster-person', true);

        // the device settings, opened from the header (through the menu on a phone)
        await page.goto(`${server.url}/`);
        if (v.name === 'phone') await page.getByText('Menu', { exact: true }).click();
        await page.getByText('Settings', { exact: true }).click();
        const panel = page.locator('.settings-panel');
        await panel.waitFor();
        // a label and its description are separate: the label is only the name, the description describes the box
        const lineage = await page.evaluate(() => {
          const box = document.querySelector<HTMLInputElement>('input[data-setting="lineageLines"]')!;
          return { label: box.labels?.[0]?.textContent, description: box.getAttribute('aria-describedby') };
        });
        expect.soft(lineage).toEqual({ label: 'Lineage lines', description: 'setting-lineageLines-hint' });
        expect.soft(await panel.innerText()).toMatch(/Lineage lines\s*\n\s*Lines from each tab/);
        expect.soft(await misalignedFields(page, '.settings-panel')).toEqual([]);
        const box = (await panel.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(v.viewport.width);
        expect.soft(await overflowsSideways(page)).toBe(false);
        await shoot(page, v, 'settings', false);
        // Escape closes the settings, then (on a phone) the menu, each handing the focus back to its button
        await page.getByLabel('Lineage lines').focus();
        await page.keyboard.press('Escape');
        await panel.waitFor({ state: 'hidden' });
        expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Settings');
        if (v.name === 'phone') {
          await page.keyboard.press('Escape');
          await page.locator('[data-theme-toggle]').waitFor({ state: 'hidden' });
          expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Menu');
        }
      } finally {
        await context.close();
      }
    });
  }
});
