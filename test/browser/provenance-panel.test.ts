import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { insertUncle, writeUncleEdge } from '../helpers/lineage.js';
import { createSession, signedInPage, type WebServer, withServerAndBrowser } from './browser-harness.js';

/** The session page's hierarchy and human-message panel in a real Chromium (docs/design/surfaces.md "Session detail"). */
let server: WebServer;
let browser: Browser;
withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

async function uncleCount(junior: number): Promise<number> {
  const rows = await server.h.store.kysely.selectFrom('session_uncles').select('uncle_session_id').where('session_id', '=', junior).execute();
  return rows.length;
}

describe('the provenance panel', () => {
  it('the × on an "also senior" chip asks first, then removes that edge and repaints the panel', async () => {
    const root = await createSession(server, { title: 'chip root' });
    const uncle = await createSession(server, { title: 'chip uncle', parent_session_id: root.id });
    const junior = await createSession(server, { title: 'chip junior', parent_session_id: root.id });
    await writeUncleEdge(server.h, uncle.id, junior.id);
    const { context, page } = await signedInPage(server, browser);
    try {
      await page.goto(`${server.url}/sessions/${root.id}`);
      const chip = page.locator(`#provenance-panel [data-node-id="${junior.id}"] [data-uncle-id="${uncle.id}"]`);
      await chip.waitFor();
      // dismissing the confirm removes nothing
      page.once('dialog', (d) => void d.dismiss());
      await chip.getByRole('button', { name: `Remove #${uncle.id} as a senior of #${junior.id}` }).click();
      await page.waitForTimeout(300);
      expect(await uncleCount(junior.id)).toBe(1);
      await chip.waitFor();
      // accepting it removes the edge; the panel comes back without the chip
      const asked: string[] = [];
      page.once('dialog', (d) => {
        asked.push(d.message());
        void d.accept();
      });
      await chip.getByRole('button', { name: `Remove #${uncle.id} as a senior of #${junior.id}` }).click();
      await page.locator('[data-action-result="uncle-removed"]').waitFor();
      await chip.waitFor({ state: 'detached' });
      expect(asked[0]).toContain(`Remove #${uncle.id} as a senior of #${junior.id}?`);
      expect(await uncleCount(junior.id)).toBe(0);
      await page.locator(`#provenance-panel [data-node-id="${junior.id}"]`).waitFor();
    } finally {
      await context.close();
    }
  });

  it('a node with seniors outside the drawn tree says how many are not shown', async () => {
    const mine = await createSession(server, { title: 'my tree root' });
    const child = await createSession(server, { title: 'child with a far senior', parent_session_id: mine.id });
    const far = await createSession(server, { title: 'far root' });
    const farChild = await createSession(server, { title: 'far child', parent_session_id: far.id });
    await insertUncle(server.h, farChild.id, child.id);
    const { context, page } = await signedInPage(server, browser);
    try {
      await page.goto(`${server.url}/sessions/${mine.id}`);
      const note = page.locator(`#provenance-panel [data-node-id="${child.id}"] .hidden-seniors`);
      await note.waitFor();
      expect(await note.innerText()).toContain('1 more senior not shown — see the API');
      expect(await page.locator(`#provenance-panel [data-node-id="${farChild.id}"]`).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('a human message recorded elsewhere in the hierarchy and a spawn in another tab appear in the open panel without a reload', async () => {
    const root = await createSession(server, { title: 'live panel root' });
    const { context, page } = await signedInPage(server, browser);
    const other = await signedInPage(server, browser);
    try {
      await page.goto(`${server.url}/sessions/${root.id}`);
      await page.locator('#provenance-panel').waitFor();
      expect(await page.locator('#provenance-panel .human-counts').getAttribute('data-elsewhere')).toBe('0');
      const marker = await page.evaluate(() => ((window as unknown as { marker: number }).marker = 7));

      // the other tab starts a session under this one from the new-session form: a spawn and a human message
      await other.page.goto(`${server.url}/sessions/new`);
      await other.page.getByLabel('Prompt').fill('Please check the <b>nightly</b> build');
      await other.page.getByLabel('Parent session').fill(`#${root.id}`);
      await other.page.getByRole('button', { name: 'Create session' }).click();
      await other.page.waitForURL(/\/sessions\/\d+$/);
      const childId = Number(/(\d+)$/.exec(other.page.url())![1]);

      await page.locator(`#provenance-panel [data-node-id="${childId}"]`).waitFor();
      const entry = page.locator('#provenance-panel [data-scope="elsewhere"][data-entry-point="web_ui.new_session"]');
      await entry.waitFor();
      expect(await entry.locator('.human-words').innerText()).toBe('Please check the <b>nightly</b> build');
      expect(await page.locator('#provenance-panel .human-counts').getAttribute('data-elsewhere')).toBe('1');
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(marker);
    } finally {
      await other.context.close();
      await context.close();
    }
  });
});

describe('a change while the panel loads', () => {
  // The skeleton's own request is answered before a child is spawned; the stream's panel event
  // with the child reaches the tab while the skeleton (which takes no live event) still shows.
  // The older answer is swapped in afterwards: the held event must follow it, or the panel would
  // miss the child until the next change.
  for (const path of ['shared worker', 'a stream per tab'] as const) {
    it(`the panel shows a child spawned after its request was answered (${path})`, async () => {
      const parent = await createSession(server, { title: `loading parent (${path})` });
      const { context, page } = await signedInPage(server, browser);
      try {
        if (path === 'a stream per tab') await context.addInitScript(() => delete (window as { SharedWorker?: unknown }).SharedWorker);
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let answered = false;
        await page.route('**/provenance_panel', async (route) => {
          const response = await route.fetch(); // the answer as of now, before the child
          answered = true;
          await gate;
          await route.fulfill({ response });
        });
        await page.goto(`${server.url}/sessions/${parent.id}`);
        await expect.poll(() => answered).toBe(true);
        const child = await createSession(server, { title: `spawned while the panel loads (${path})`, parent_session_id: parent.id });
        // the stream's panel with the child has reached the tab, which still shows the skeleton (the
        // page's first view, held as well, does not have the child)
        await page.waitForFunction(
          (id) =>
            document.querySelector('.panel-skeleton[data-newer-panel-held="true"] template[data-held-panel]')?.innerHTML.includes(`data-node-id="${id}"`) ===
            true,
          child.id,
        );
        release();
        await page.locator(`#provenance-panel [data-node-id="${child.id}"]`).waitFor();
        expect(await page.locator('.panel-skeleton').count()).toBe(0);
        expect(await page.locator('#provenance-panel').count()).toBe(1);
      } finally {
        await context.close();
      }
    });

    it(`a page where nothing changed while the panel loaded swaps it in once (${path})`, async () => {
      const parent = await createSession(server, { title: `quiet parent (${path})` });
      const { context, page } = await signedInPage(server, browser);
      try {
        if (path === 'a stream per tab') await context.addInitScript(() => delete (window as { SharedWorker?: unknown }).SharedWorker);
        await context.addInitScript(() => {
          const w = window as unknown as { panelSwaps: number };
          w.panelSwaps = 0;
          document.addEventListener('htmx:sseBeforeMessage', () => w.panelSwaps++);
        });
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        await page.route('**/provenance_panel', async (route) => {
          const response = await route.fetch();
          await gate;
          await route.fulfill({ response });
        });
        await page.goto(`${server.url}/sessions/${parent.id}`);
        // the stream's first view is held: the same panel as the answer still to come
        await page.locator('.panel-skeleton template[data-held-panel]').waitFor({ state: 'attached' });
        release();
        // the panel is in and processed (the SSE extension listens on it), and a hand-over would have run
        await page.waitForFunction(() => {
          const panel = document.querySelector('#provenance-panel') as unknown as { 'htmx-internal-data'?: { sseEventListener?: unknown } } | null;
          return panel?.['htmx-internal-data']?.sseEventListener !== undefined;
        });
        await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
        expect(await page.evaluate(() => (window as unknown as { panelSwaps: number }).panelSwaps)).toBe(0);
        // the count sees swaps: a change is swapped in (by one event or more, as its refresh batches fall)
        const child = await createSession(server, { title: `spawned on a quiet page (${path})`, parent_session_id: parent.id });
        await page.locator(`#provenance-panel [data-node-id="${child.id}"]`).waitFor();
        expect(await page.evaluate(() => (window as unknown as { panelSwaps: number }).panelSwaps)).toBeGreaterThanOrEqual(1);
      } finally {
        await context.close();
      }
    });

    // htmx inserts the answer at once but processes it (the SSE extension's listener) only when it
    // settles: a panel event in between finds the panel in the page and no listener on it. The test
    // holds the settle step itself, so the event arrives inside that gap on any machine.
    it(`the panel shows a child spawned after it was inserted and before htmx processed it (${path})`, async () => {
      const parent = await createSession(server, { title: `settling parent (${path})` });
      const { context, page } = await signedInPage(server, browser);
      try {
        if (path === 'a stream per tab') await context.addInitScript(() => delete (window as { SharedWorker?: unknown }).SharedWorker);
        await context.addInitScript((delay) => {
          const w = window as unknown as { heldSettles: (() => void)[] };
          w.heldSettles = [];
          const setTimeoutBefore = window.setTimeout.bind(window);
          window.setTimeout = ((fn: () => void, ms?: number, ...rest: unknown[]) => {
            if (ms !== delay) return setTimeoutBefore(fn, ms, ...rest);
            w.heldSettles.push(fn);
            return 0;
          }) as typeof window.setTimeout;
        }, HELD_SETTLE_DELAY);
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let answered = false;
        await page.route('**/provenance_panel', async (route) => {
          const response = await route.fetch();
          answered = true;
          await gate;
          await route.fulfill({ response });
        });
        await page.goto(`${server.url}/sessions/${parent.id}`);
        await expect.poll(() => answered).toBe(true);
        await page.evaluate((delay) => {
          const w = window as unknown as { htmx: { config: { defaultSettleDelay: number } } };
          w.htmx.config.defaultSettleDelay = delay;
        }, HELD_SETTLE_DELAY);
        release();
        // the answer is in the page, not yet processed
        await page.waitForFunction(
          () => document.querySelector('#provenance-panel') !== null && (window as unknown as { heldSettles: unknown[] }).heldSettles.length > 0,
        );
        await page.evaluate((name) => {
          const w = window as unknown as { seenPanels: string[] };
          w.seenPanels = [];
          const connect = document.querySelector('[sse-connect]') as unknown as { 'htmx-internal-data': { sseEventSource: EventTarget } };
          connect['htmx-internal-data'].sseEventSource.addEventListener(name, (e) => w.seenPanels.push((e as MessageEvent<string>).data));
        }, `panel-${parent.id}`);
        const child = await createSession(server, { title: `spawned while the panel settles (${path})`, parent_session_id: parent.id });
        await page.waitForFunction(
          (id) => (window as unknown as { seenPanels: string[] }).seenPanels.some((d) => d.includes(`data-node-id="${id}"`)),
          child.id,
        );
        expect(await page.locator(`#provenance-panel [data-node-id="${child.id}"]`).count(), 'not swapped before the panel is processed').toBe(0);
        await page.evaluate(() => {
          const w = window as unknown as { heldSettles: (() => void)[]; htmx: { config: { defaultSettleDelay: number } } };
          w.htmx.config.defaultSettleDelay = 20;
          for (const settle of w.heldSettles.splice(0)) settle();
        });
        await page.locator(`#provenance-panel [data-node-id="${child.id}"]`).waitFor();
      } finally {
        await context.close();
      }
    });
  }
});

/** A settle delay no one else uses, so the test's setTimeout wrapper knows htmx's settle step by it. */
const HELD_SETTLE_DELAY = 987_654;
