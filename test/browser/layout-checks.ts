import type { Page } from 'playwright-core';

/**
 * Layout measurements the screenshot test asserts on: each names a defect a person saw
 * (a line through a heading, a label and its description run together, fields out of line,
 * a phone header four rows tall, headers broken mid-word, a floating button over a field).
 */

/** Boxes of every drawn lineage path (line and glow) that intersect the given element's box. */
export async function linesCrossing(page: Page, selector: string): Promise<{ left: number; top: number; right: number; bottom: number }[]> {
  return page.evaluate((selector) => {
    const target = document.querySelector(selector)!.getBoundingClientRect();
    return [...document.querySelectorAll('[data-lineage-layer] path')]
      .map((p) => p.getBoundingClientRect())
      .filter((b) => b.left < target.right && b.right > target.left && b.top < target.bottom && b.bottom > target.top)
      .map((b) => ({ left: b.left, top: b.top, right: b.right, bottom: b.bottom }));
  }, selector);
}

/**
 * Fields out of line, as messages: within a form each field's label starts where its control
 * starts; stacked fields share one left edge; fields side by side (a form row, the filters)
 * put their labels on one line and their controls on the next; checkboxes share a column
 * and so do their labels.
 */
export async function misalignedFields(page: Page, formSelector: string): Promise<string[]> {
  return page.evaluate((formSelector) => {
    const out: string[] = [];
    const near = (a: number, b: number) => Math.abs(a - b) <= 1;
    for (const form of document.querySelectorAll<HTMLElement>(formSelector)) {
      const fields = [...form.querySelectorAll<HTMLElement>('.field')].filter((f) => f.offsetParent !== null);
      const stacked: { name: string; left: number }[] = [];
      const rows = new Map<Element, { name: string; label: DOMRect; control: DOMRect }[]>();
      for (const f of fields) {
        const label = f.querySelector('label');
        const control = f.querySelector('input:not([type=hidden]), select, textarea');
        if (!label || !control) continue;
        const name = label.textContent ?? '';
        const l = label.getBoundingClientRect();
        const c = control.getBoundingClientRect();
        if (!near(l.left, c.left)) out.push(`${formSelector} “${name}”: label at x=${l.left}, control at x=${c.left}`);
        const row = f.parentElement!;
        if (row.matches('.form-row, .filters')) rows.set(row, [...(rows.get(row) ?? []), { name, label: l, control: c }]);
        else stacked.push({ name, left: l.left });
      }
      for (const s of stacked)
        if (!near(s.left, stacked[0]!.left)) out.push(`${formSelector} “${s.name}” starts at x=${s.left}, “${stacked[0]!.name}” at x=${stacked[0]!.left}`);
      // a button beside fields sits level with their controls
      for (const button of form.querySelectorAll<HTMLElement>('.form-row > button, .filters > button')) {
        const b = button.getBoundingClientRect();
        for (const m of rows.get(button.parentElement!) ?? [])
          if (b.top < m.control.bottom && m.label.top < b.bottom && !near(b.bottom, m.control.bottom))
            out.push(`${formSelector} “${button.textContent}” ends at y=${b.bottom}, the control of “${m.name}” at y=${m.control.bottom}`);
      }
      for (const members of rows.values()) {
        // fields on the same line (a row may wrap onto several)
        for (const [i, a] of members.entries())
          for (const b of members.slice(i + 1)) {
            if (a.label.top >= b.control.bottom || b.label.top >= a.control.bottom) continue;
            if (!near(a.label.top, b.label.top))
              out.push(`${formSelector} labels “${a.name}” (y=${a.label.top}) and “${b.name}” (y=${b.label.top}) are not level`);
            if (!near(a.control.top, b.control.top))
              out.push(`${formSelector} controls of “${a.name}” (y=${a.control.top}) and “${b.name}” (y=${b.control.top}) are not level`);
          }
      }
      const checks = [...form.querySelectorAll<HTMLElement>('.check')].filter((c) => c.offsetParent !== null);
      const boxLefts = checks.map((c) => c.querySelector('input')!.getBoundingClientRect().left);
      // the text beside each box: its label (or, where the label wraps the box, the label's text)
      const labelLefts = checks.map((c) => (c.querySelector('label') ?? c.querySelector('input + *') ?? c).getBoundingClientRect().left);
      if (boxLefts.some((x) => !near(x, boxLefts[0]!))) out.push(`${formSelector} checkboxes start at ${boxLefts.join(', ')}`);
      if (labelLefts.some((x) => !near(x, labelLefts[0]!))) out.push(`${formSelector} checkbox labels start at ${labelLefts.join(', ')}`);
    }
    return out;
  }, formSelector);
}

/**
 * Header cells broken mid-word, as messages: a cell whose text is wider than the cell, or a
 * word of it laid out across two lines (its range has more than one line box).
 */
export async function brokenHeaderCells(page: Page, selector = 'th'): Promise<string[]> {
  return page.evaluate((selector) => {
    const out: string[] = [];
    for (const th of document.querySelectorAll<HTMLElement>(selector)) {
      // not rendered, or visually hidden (a phone's stacked table keeps its header row for assistive tech only)
      const head = th.closest('thead');
      if (th.offsetParent === null || (head && getComputedStyle(head).clip !== 'auto')) continue;
      if (th.scrollWidth > th.clientWidth) out.push(`“${th.textContent}” is ${th.scrollWidth}px wide in a ${th.clientWidth}px cell`);
      const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (const m of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (lines.size > 1) out.push(`“${m[0]}” in “${th.textContent}” is split over ${lines.size} lines`);
        }
      }
    }
    return out;
  }, selector);
}

/** Visible form controls whose box the element's box overlaps, at the current scroll position. */
export async function controlsCovered(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((selector) => {
    const el = document.querySelector(selector);
    if (!el) return [];
    const a = el.getBoundingClientRect();
    return [...document.querySelectorAll<HTMLElement>('input:not([type=hidden]), textarea, select')]
      .filter((c) => c.offsetParent !== null && !el.contains(c))
      .filter((c) => {
        const b = c.getBoundingClientRect();
        return a.left < b.right && a.right > b.left && a.top < b.bottom && a.bottom > b.top;
      })
      .map((c) => c.id || c.getAttribute('name') || c.tagName);
  }, selector);
}

export async function overflowsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}
