import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, lineagePaths, settled, signedInPage, type WebServer, withServerAndBrowser } from './browser-harness.js';

/** docs/design/surfaces.md "Web UI" and docs/design/quality.md "Security", in a real Chromium against the real server. */
let server: WebServer;
let browser: Browser;
withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

async function sessionsTitled(q: string): Promise<number> {
  const res = await fetch(`${server.url}/api/v1/sessions?status=&q=${encodeURIComponent(q)}`, { headers: { authorization: `Bearer ${server.h.fleetKey}` } });
  return ((await res.json()) as { sessions: unknown[] }).sessions.length;
}

describe('web UI security in a browser', () => {
  it('a hostile title renders as text: no script runs, no element is injected', async () => {
    const title = '<img src=x onerror=alert(1)>';
    const s = await createSession(server, { title });
    const { context, page } = await signedInPage(server, browser);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    try {
      await page.goto(`${server.url}/`);
      await page.locator(`[data-session-row="${s.id}"]`).getByText(title).waitFor();
      await page.goto(`${server.url}/sessions/${s.id}`);
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
      await page.locator('#provenance-panel').waitFor();
      expect(await page.locator('img').count()).toBe(0);
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a form post without the CSRF token is refused and creates nothing', async () => {
    const { context, page } = await signedInPage(server, browser);
    try {
      // a request carrying the sign-in cookie but no token (what a forged cross-site form sends)
      const forged = await page.request.post(`${server.url}/sessions/quick`, { form: { prompt: 'forged quick prompt' }, maxRedirects: 0 });
      expect(forged.status()).toBe(403);
      expect(await forged.text()).toContain('csrf-failed');
      // the same form in the page, with its token removed
      await page.goto(`${server.url}/`);
      await page.locator('form[action="/sessions/quick"] input[name="_csrf"]').evaluate((el) => el.remove());
      await page.getByLabel('Start a router session with').fill('tokenless quick prompt');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await page.locator('[data-error="csrf-failed"]').waitFor();
      expect(await sessionsTitled('forged quick prompt')).toBe(0);
      expect(await sessionsTitled('tokenless quick prompt')).toBe(0);
      // with its token, the same form works: the refusal was the token's doing
      await page.goto(`${server.url}/`);
      await page.getByLabel('Start a router session with').fill('honest quick prompt');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'honest quick prompt' }).waitFor();
      expect(await sessionsTitled('honest quick prompt')).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('without the sign-in cookie a page answers with the sign-in page, never the data', async () => {
    const s = await createSession(server, { title: 'secret plans of the fleet' });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const response = await page.goto(`${server.url}/sessions/${s.id}`);
      expect(new URL(page.url()).pathname).toBe('/sign-in');
      expect(response!.status()).toBe(200);
      await page.getByRole('heading', { name: 'Sign in to Warrant' }).waitFor();
      expect(await page.content()).not.toContain('secret plans of the fleet');
      const fragment = await page.request.get(`${server.url}/sessions/${s.id}/provenance_panel`, { maxRedirects: 0 });
      expect(fragment.status()).toBe(303);
      expect(await fragment.text()).not.toContain('secret plans');
    } finally {
      await context.close();
    }
  });
});

describe('the session page', () => {
  it('paints before its deferred panel loads, with a skeleton the panel replaces without moving what follows', async () => {
    const parent = await createSession(server, { title: 'deferred parent', agent_root: 'router' });
    const kids = [
      await createSession(server, { title: 'deferred child one', parent_session_id: parent.id }),
      await createSession(server, { title: 'deferred child two', parent_session_id: parent.id }),
    ];
    const { context, page } = await signedInPage(server, browser);
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let requested = 0;
      await page.route('**/provenance_panel', async (route) => {
        requested++;
        await gate;
        await route.continue();
      });
      await page.goto(`${server.url}/sessions/${parent.id}`);
      // painted: status and timeline are there while the panel request is held
      await page.getByRole('heading', { level: 1, name: 'deferred parent' }).waitFor();
      await page.locator('.panel-skeleton').waitFor();
      await expect.poll(() => requested).toBe(1);
      expect(await page.locator('#provenance-panel').count()).toBe(0);
      expect(await page.locator('.panel-skeleton [id]').count()).toBe(0); // nothing a live refresh could target
      expect(await page.locator('.panel-skeleton li').count()).toBe(3); // itself and two children
      const before = (await page.locator('#timeline').boundingBox())!.y;
      release();
      await page.locator('#provenance-panel').waitFor();
      expect(await page.locator('.panel-skeleton').count()).toBe(0);
      for (const k of kids) await page.locator(`#provenance-panel [data-node-id="${k.id}"] a`).getByText(k.title).waitFor();
      expect(await page.locator('#provenance-panel [aria-current="page"]').getAttribute('data-node-id')).toBe(String(parent.id));
      const after = (await page.locator('#timeline').boundingBox())!.y;
      expect(Math.abs(after - before)).toBeLessThan(1);
    } finally {
      await context.close();
    }
  });

  it('actions work through their forms and the page follows the change live', async () => {
    const s = await createSession(server, { title: 'archive me from the page' });
    const { context, page } = await signedInPage(server, browser);
    page.on('dialog', (d) => void d.accept());
    try {
      await page.goto(`${server.url}/sessions/${s.id}`);
      await page.getByRole('button', { name: 'Archive' }).click();
      await page.locator('[data-action-result="archive"]').getByText(`Archived #${s.id}.`).waitFor();
      // the status section re-renders from the live event: now it offers unarchive
      await page.getByRole('button', { name: 'Unarchive' }).waitFor();
      await page.locator('#timeline [data-event-type="archived"]').waitFor();
      const events = await (await fetch(`${server.url}/api/v1/sessions/${s.id}/events`, { headers: { authorization: `Bearer ${server.h.fleetKey}` } })).json();
      const archived = (events as { events: { type: string; actor: { kind: string; ref: string; basis: string }; credential_id: number }[] }).events.find(
        (e) => e.type === 'archived',
      )!;
      expect(archived.actor).toMatchObject({ kind: 'human', ref: server.adminKey, basis: 'authenticated' });
      expect(archived.credential_id).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  });
});

describe('keyboard and themes', () => {
  it('the skip link comes first and moves focus to the content; the theme toggle is remembered per device', async () => {
    const { context, page } = await signedInPage(server, browser);
    try {
      await page.goto(`${server.url}/`);
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Skip to content');
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
      // a visible focus ring on keyboard focus
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');

      const before = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim());
      await page.locator('[data-theme-toggle]').click();
      const theme = await page.evaluate(() => document.documentElement.dataset.theme);
      expect(['light', 'dark']).toContain(theme);
      const after = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim());
      expect(after).not.toBe(before);
      await page.reload();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
    } finally {
      await context.close();
    }
  });
});

describe('live refresh', () => {
  it('a session created elsewhere appears in the strip, the list and the open tree without a reload', async () => {
    const { context, page } = await signedInPage(server, browser);
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${server.url}/`);
      await page.locator('[data-strip-scroller] [data-tab-id]').first().waitFor();
      const marker = await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
      const fresh = await createSession(server, { title: 'appears live' });
      await page.locator(`[data-strip-scroller] [data-tab-id="${fresh.id}"]`).waitFor();
      await page.locator(`[data-session-row="${fresh.id}"]`).waitFor();
      // a child spawned under it draws its line at once
      const child = await createSession(server, { title: 'appears live child', parent_session_id: fresh.id });
      await page.locator(`[data-strip-scroller] [data-tab-id="${child.id}"]`).waitFor();
      await page.evaluate((id) => document.querySelector(`[data-strip-scroller] [data-tab-id="${id}"]`)!.scrollIntoView({ inline: 'center' }), child.id);
      await settled(page);
      await expect.poll(async () => (await lineagePaths(page)).some((l) => l.parent === fresh.id && l.child === child.id)).toBe(true);
      // the same document all along: no reload happened
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(marker);

      // an open session page's tree gains a child spawned meanwhile
      const treePage = await other.newPage();
      const { signIn } = await import('./browser-harness.js');
      await signIn(server, treePage);
      await treePage.goto(`${server.url}/sessions/${fresh.id}`);
      await treePage.locator('#provenance-panel').waitFor();
      const late = await createSession(server, { title: 'late live child', parent_session_id: fresh.id });
      await treePage.locator(`#provenance-panel [data-node-id="${late.id}"]`).waitFor();
    } finally {
      await other.close();
      await context.close();
    }
  });
});

describe('a page rendered before a change', () => {
  // The document is fetched, then a session is created, then the (now stale) document is handed
  // to the browser: its live connection opens only after the change. The stream resumes from
  // the live event id the page was rendered as of, so the change still arrives.
  for (const path of ['shared worker', 'shared worker already open in another tab', 'a stream per tab'] as const) {
    it(`still shows what changed before its live connection opened (${path})`, async () => {
      const { context, page } = await signedInPage(server, browser);
      try {
        if (path === 'a stream per tab') await context.addInitScript(() => delete (window as { SharedWorker?: unknown }).SharedWorker);
        if (path === 'shared worker already open in another tab') {
          // the worker's stream is up and past the page's data when the late tab registers: it replays its record
          const first = await context.newPage();
          await first.goto(`${server.url}/`);
          await first.locator('[data-strip-scroller]').waitFor();
          const warm = await createSession(server, { title: 'the first tab sees this live' });
          await first.locator(`[data-session-row="${warm.id}"]`).waitFor({ state: 'attached' });
        }
        let created: { id: number } | null = null;
        await page.route(`${server.url}/`, async (route) => {
          const response = await route.fetch();
          created = await createSession(server, { title: `created while the page was in flight (${path})` });
          await route.fulfill({ response });
        });
        await page.goto(`${server.url}/`);
        expect(created).not.toBeNull();
        const id = (created as unknown as { id: number }).id;
        // the document predates the session: it is not in the HTML the browser got
        await page.locator(`[data-session-row="${id}"]`).waitFor({ state: 'attached' });
        await page.locator(`[data-strip-scroller] [data-tab-id="${id}"]`).waitFor({ state: 'attached' });
      } finally {
        await context.close();
      }
    });
  }
});
