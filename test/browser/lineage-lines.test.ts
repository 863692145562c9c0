import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, lineagePaths, settled, signedInPage, tabAnchor, type WebServer, withServerAndBrowser } from './browser-harness.js';

/** docs/design/surfaces.md "The session strip with lineage lines", in a real Chromium against the real server. */
let server: WebServer;
let browser: Browser;
withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

async function family(prefix: string, children = 2): Promise<{ parent: number; children: number[] }> {
  const parent = await createSession(server, { title: `${prefix} router`, agent_root: 'router' });
  const kids: number[] = [];
  for (let i = 1; i <= children; i++)
    kids.push((await createSession(server, { title: `${prefix} worker ${i}`, agent_root: 'worker', parent_session_id: parent.id })).id);
  return { parent: parent.id, children: kids };
}

async function fillers(prefix: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await createSession(server, { title: `${prefix} filler ${i}` });
}

function near(a: { x: number; y: number }, b: { x: number; y: number }): boolean {
  return Math.abs(a.x - b.x) < 1.5 && Math.abs(a.y - b.y) < 1.5;
}

/** Scrolls the strip so that `id`'s tab centre sits `offset` px from the scroller's left edge. */
async function scrollTabTo(page: Page, id: number, where: { fromLeft?: number; pastRight?: number }): Promise<void> {
  await page.evaluate(
    ({ id, where }) => {
      const scroller = document.querySelector<HTMLElement>('[data-strip-scroller]')!;
      const tab = scroller.querySelector<HTMLElement>(`[data-tab-id="${id}"]`)!;
      const s = scroller.getBoundingClientRect();
      const t = tab.getBoundingClientRect();
      const centre = (t.left + t.right) / 2 - s.left;
      const target = where.fromLeft !== undefined ? where.fromLeft : s.width + where.pastRight!;
      scroller.scrollLeft += centre - target;
    },
    { id, where },
  );
  await settled(page);
}

async function linesOf(page: Page, parent: number) {
  await settled(page);
  return (await lineagePaths(page)).filter((l) => l.parent === parent);
}

describe('lineage lines in the session strip', () => {
  it('draws one path.lineage-line per child, anchored on the parent and child tabs’ bottom centres', async () => {
    const f = await family('anchors');
    await fillers('after-anchors', 8);
    const { context, page } = await signedInPage(server, browser);
    try {
      await scrollTabTo(page, f.parent, { fromLeft: 120 });
      const lines = await linesOf(page, f.parent);
      expect(lines.map((l) => l.child).sort()).toEqual([...f.children].sort());
      const parentAnchor = await tabAnchor(page, f.parent);
      for (const line of lines) {
        expect(near(line.start, parentAnchor), `start ${JSON.stringify(line.start)} vs parent ${JSON.stringify(parentAnchor)}`).toBe(true);
        const childAnchor = await tabAnchor(page, line.child);
        expect(near(line.end, childAnchor), `end ${JSON.stringify(line.end)} vs child ${JSON.stringify(childAnchor)}`).toBe(true);
      }
      // siblings nest: the second child's bridge hangs deeper than the first's
      const dips = await page.evaluate(
        (ids) => ids.map((id) => Number(document.querySelector(`path.lineage-line[data-child-tab="${id}"]`)!.getAttribute('d')!.split(/[ ,]+/)[5])),
        f.children,
      );
      expect(dips[1]!).toBeGreaterThan(dips[0]!);
      // the child-end marker sits on the child tab
      const marker = await page.locator(`circle.lineage-end[data-child-tab="${f.children[0]}"]`).getAttribute('r');
      expect(marker).toBe('3.5');

      // scrolling the strip moves them, still anchored on the same tabs
      const before = lines.find((l) => l.child === f.children[0])!;
      await page.evaluate(() => (document.querySelector<HTMLElement>('[data-strip-scroller]')!.scrollLeft += 40));
      const moved = (await linesOf(page, f.parent)).find((l) => l.child === f.children[0])!;
      expect(moved.start.x).toBeCloseTo(before.start.x - 40, 0);
      expect(near(moved.start, await tabAnchor(page, f.parent))).toBe(true);
      expect(near(moved.end, await tabAnchor(page, f.children[0]!))).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('a child scrolled out of view loses its line while its parent stays in view', async () => {
    await fillers('before-clip', 8);
    const f = await family('clip');
    await fillers('after-clip', 8);
    const { context, page } = await signedInPage(server, browser);
    try {
      const [first, second] = f.children as [number, number];
      await scrollTabTo(page, second, { pastRight: -40 }); // 40 px inside the right edge
      expect((await linesOf(page, f.parent)).map((l) => l.child).sort()).toEqual([first, second].sort());
      await scrollTabTo(page, second, { pastRight: 10 }); // 10 px beyond it (tolerance is 4)
      const lines = await linesOf(page, f.parent);
      expect(lines.map((l) => l.child)).toEqual([first]);
      expect(await page.locator(`path.lineage-line[data-child-tab="${second}"]`).count()).toBe(0);
      // the parent tab is still on screen: the skip is about the child's end
      const strip = (await page.locator('[data-strip-scroller]').boundingBox())!;
      const parent = await tabAnchor(page, f.parent);
      expect(parent.x).toBeGreaterThan(strip.x);
      expect(parent.x).toBeLessThan(strip.x + strip.width);
    } finally {
      await context.close();
    }
  });

  it('draws nothing below 1024 px and everything again above it', async () => {
    const f = await family('narrow', 1);
    const { context, page } = await signedInPage(server, browser);
    try {
      await scrollTabTo(page, f.parent, { fromLeft: 120 });
      expect(await linesOf(page, f.parent)).toHaveLength(1);
      await page.setViewportSize({ width: 1000, height: 900 });
      await settled(page);
      expect(await page.locator('path.lineage-line').count()).toBe(0);
      await page.setViewportSize({ width: 1280, height: 900 });
      await scrollTabTo(page, f.parent, { fromLeft: 120 });
      expect(await linesOf(page, f.parent)).toHaveLength(1);
    } finally {
      await context.close();
    }
  });

  it('the per-device "Lineage lines" setting turns them off (and it persists) and on again', async () => {
    const f = await family('setting', 1);
    const { context, page } = await signedInPage(server, browser);
    try {
      await scrollTabTo(page, f.parent, { fromLeft: 120 });
      expect(await linesOf(page, f.parent)).toHaveLength(1);
      await page.getByText('Settings', { exact: true }).click();
      const box = page.getByLabel('Lineage lines');
      expect(await box.isChecked()).toBe(true); // default on
      await box.uncheck();
      await settled(page);
      expect(await page.locator('path.lineage-line').count()).toBe(0);
      await page.reload();
      await scrollTabTo(page, f.parent, { fromLeft: 120 });
      expect(await page.locator('path.lineage-line').count()).toBe(0);
      await page.getByText('Settings', { exact: true }).click();
      await page.getByLabel('Lineage lines').check();
      expect(await linesOf(page, f.parent)).toHaveLength(1);
    } finally {
      await context.close();
    }
  });

  it('a working child gets the larger marker and the "working" line; the extras stay off by default', async () => {
    const parent = await createSession(server, { title: 'working router' });
    const child = (await (
      await fetch(`${server.url}/api/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.h.fleetKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'busy worker', parent_session_id: parent.id, attach: true }),
      })
    ).json()) as { session: { id: number } };
    const calm = await createSession(server, { title: 'waiting worker', parent_session_id: parent.id });
    const { context, page } = await signedInPage(server, browser);
    try {
      await scrollTabTo(page, parent.id, { fromLeft: 120 });
      await settled(page);
      const line = page.locator(`path.lineage-line[data-child-tab="${child.session.id}"]`);
      expect(await line.getAttribute('class')).toContain('working');
      expect(await page.locator(`circle.lineage-end[data-child-tab="${child.session.id}"]`).getAttribute('r')).toBe('4.5');
      // reduced motion (this context): the dash does not march
      expect(await line.evaluate((el) => getComputedStyle(el).animationName)).toBe('none');
      // optional extras default off: no tint, server order kept
      expect(await page.locator('[data-tab-id][data-tint]').count()).toBe(0);
    } finally {
      await context.close();
    }
    // with motion allowed, the working child's dash marches
    const moving = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'no-preference' });
    try {
      const page = await moving.newPage();
      const { signIn } = await import('./browser-harness.js');
      await signIn(server, page);
      await scrollTabTo(page, parent.id, { fromLeft: 120 });
      const line = page.locator(`path.lineage-line[data-child-tab="${child.session.id}"]`);
      expect(await line.evaluate((el) => getComputedStyle(el).animationName)).toBe('lineage-march');
      const waiting = page.locator(`path.lineage-line[data-child-tab="${calm.id}"]`);
      expect(await waiting.getAttribute('class')).not.toContain('working');
      expect(await waiting.evaluate((el) => getComputedStyle(el).animationName)).toBe('none');
      expect(await page.locator(`circle.lineage-end[data-child-tab="${calm.id}"]`).getAttribute('r')).toBe('3.5');
    } finally {
      await moving.close();
    }
  });

  it('the optional extras: children ordered after their parent, tinted, and the hover highlight', async () => {
    const f = await family('extras', 1);
    await createSession(server, { title: 'extras sibling in between' });
    const late = await createSession(server, { title: 'extras late child', parent_session_id: f.parent });
    const other = await family('extras other', 1);
    const { context, page } = await signedInPage(server, browser);
    try {
      await page.evaluate(() => {
        localStorage.setItem('warrant.orderChildren', 'on');
        localStorage.setItem('warrant.tintChildren', 'on');
        localStorage.setItem('warrant.hoverHighlight', 'on');
      });
      await page.reload();
      const order = await page.locator('[data-strip-scroller] [data-tab-id]').evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.tabId)));
      const at = order.indexOf(f.parent);
      expect(order.slice(at, at + 3)).toEqual([f.parent, f.children[0], late.id]);
      const parentHue = await page.locator(`[data-tab-id="${f.parent}"]`).getAttribute('data-hue');
      expect(await page.locator(`[data-tab-id="${late.id}"]`).getAttribute('data-tint')).toBe(parentHue);
      await scrollTabTo(page, f.parent, { fromLeft: 120 });
      await page.locator(`[data-strip-scroller] [data-tab-id="${f.parent}"]`).hover();
      await settled(page);
      expect(await page.locator(`path.lineage-line[data-child-tab="${late.id}"]`).getAttribute('class')).toContain('is-bright');
      expect(await page.locator(`path.lineage-line[data-child-tab="${other.children[0]}"]`).getAttribute('class')).toContain('is-dim');
      await page.mouse.move(5, 600); // off the strip: everything back to normal
      await settled(page);
      expect(await page.locator('path.lineage-line.is-dim, path.lineage-line.is-bright').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
