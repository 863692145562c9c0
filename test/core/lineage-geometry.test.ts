import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineageEdges, lineagePath, orderChildrenAfterParents, subtreeOf, type Rect } from '../../src/core/lineage-geometry.js';

const rect = (left: number, top: number, width: number, height: number): Rect => ({ left, top, right: left + width, bottom: top + height });
/** the control points' y of `M x1 y1 C x1 yc, x2 yc, x2 y2` */
const controlY = (d: string): number => Number(/C \S+ (\S+),/.exec(d)![1]);

describe('lineagePath (docs/design/surfaces.md)', () => {
  const strip = rect(0, 0, 1000, 40);

  it('flat strip: anchors on both tabs’ bottom centres and hangs a U-bridge below', () => {
    const parent = rect(10, 4, 100, 32); // centre 60, bottom 36
    const child = rect(310, 4, 100, 32); // centre 360, bottom 36
    const p = lineagePath(parent, child, strip, 0)!;
    expect(p).toMatchObject({ x1: 60, y1: 36, x2: 360, y2: 36 });
    // dip = clamp(14 + 300 × 0.085, 22, 104) = 39.5
    expect(p.d).toBe('M 60 36 C 60 75.5, 360 75.5, 360 36');
  });

  it('clamps the dip between 22 and 104 px', () => {
    const near = lineagePath(rect(0, 0, 20, 30), rect(30, 0, 20, 30), strip, 0)!; // |dx| 30 → 16.55 → 22
    expect(controlY(near.d)).toBe(30 + 22);
    const far = lineagePath(rect(0, 0, 20, 30), rect(1500, 0, 20, 30), rect(0, 0, 2000, 40), 0)!; // 14 + 127.5 → 104
    expect(controlY(far.d)).toBe(30 + 104);
  });

  it('wrapped strip: a child on the next row adds the vertical offset to the dip, from the lower bottom', () => {
    const wrapped = rect(0, 0, 1000, 80);
    const parent = rect(100, 2, 100, 34); // bottom 36, centre 150
    const child = rect(100, 42, 100, 34); // bottom 76, centre 150 (directly below)
    const p = lineagePath(parent, child, wrapped, 0)!;
    expect(p).toMatchObject({ x1: 150, y1: 36, x2: 150, y2: 76 });
    // y0 = 76; dip = 22 + 0 + |76 − 36| = 62
    expect(controlY(p.d)).toBe(76 + 62);
    // one formula: the reverse direction gives the same depth below the lower row
    const back = lineagePath(child, parent, wrapped, 0)!;
    expect(controlY(back.d)).toBe(76 + 62);
  });

  it('sibling nesting: each further sibling dips 8 px deeper, so lines never overprint', () => {
    const parent = rect(0, 0, 100, 30);
    const child = rect(400, 0, 100, 30);
    const ys = [0, 1, 2, 3].map((depth) => controlY(lineagePath(parent, child, strip, depth)!.d));
    expect(ys[1]! - ys[0]!).toBe(8);
    expect(ys[3]! - ys[0]!).toBe(24);
  });

  it('off-strip skip: an end whose centre lies outside the visible box by more than 4 px is not drawn', () => {
    const visible = rect(100, 0, 500, 40); // 100 … 600
    const parent = rect(200, 0, 100, 30);
    expect(lineagePath(parent, rect(560, 0, 100, 30), visible, 0)).toBeNull(); // centre 610
    expect(lineagePath(parent, rect(553, 0, 100, 30), visible, 0)).not.toBeNull(); // centre 603: inside tolerance
    expect(lineagePath(parent, rect(555, 0, 100, 30), visible, 0)).toBeNull(); // centre 605
    expect(lineagePath(rect(0, 0, 100, 30), parent, visible, 0)).toBeNull(); // parent centre 50
    expect(lineagePath(rect(46, 0, 100, 30), parent, visible, 0)).not.toBeNull(); // parent centre 96
    // vertically outside (a tab on a row scrolled away) is skipped too
    expect(lineagePath(parent, rect(300, 100, 100, 30), visible, 0)).toBeNull();
  });

  it('zero-width rects (hidden tabs, a collapsed strip) draw nothing', () => {
    const parent = rect(0, 0, 100, 30);
    expect(lineagePath(parent, rect(300, 0, 0, 30), strip, 0)).toBeNull();
    expect(lineagePath(rect(50, 0, 0, 0), rect(300, 0, 100, 30), strip, 0)).toBeNull();
    expect(lineagePath(parent, rect(300, 0, 100, 30), rect(0, 0, 0, 40), 0)).toBeNull();
  });

  it('property: a drawn path always starts and ends on the tabs and dips below both', () => {
    const tab = fc.record({
      left: fc.integer({ min: 0, max: 900 }),
      top: fc.integer({ min: 0, max: 60 }),
      width: fc.integer({ min: 1, max: 200 }),
      height: fc.integer({ min: 1, max: 40 }),
    });
    fc.assert(
      fc.property(tab, tab, fc.integer({ min: 0, max: 12 }), (a, b, depth) => {
        const p = lineagePath(rect(a.left, a.top, a.width, a.height), rect(b.left, b.top, b.width, b.height), rect(0, 0, 1200, 120), depth);
        if (!p) return;
        expect(p.x1).toBeCloseTo(a.left + a.width / 2, 1);
        expect(p.y1).toBe(a.top + a.height);
        expect(p.x2).toBeCloseTo(b.left + b.width / 2, 1);
        expect(p.y2).toBe(b.top + b.height);
        expect(controlY(p.d)).toBeGreaterThanOrEqual(Math.max(p.y1, p.y2) + 22 + depth * 8 - 0.01);
      }),
    );
  });
});

describe('strip edges, order and subtrees', () => {
  it('gives each child its index among its siblings in strip order; parents outside the strip draw nothing', () => {
    const edges = lineageEdges([
      { id: 5, parentId: null },
      { id: 9, parentId: 5 },
      { id: 7, parentId: 5 },
      { id: 8, parentId: 3 }, // parent not in the strip
      { id: 11, parentId: 9 },
    ]);
    expect(edges).toEqual([
      { parentId: 5, childId: 9, depth: 0 },
      { parentId: 5, childId: 7, depth: 1 },
      { parentId: 9, childId: 11, depth: 0 },
    ]);
  });

  it('orders children right after their parent, keeping everything else in place', () => {
    const order = orderChildrenAfterParents([
      { id: 1, parentId: null },
      { id: 2, parentId: null },
      { id: 3, parentId: 1 },
      { id: 4, parentId: 3 },
      { id: 5, parentId: 99 },
    ]);
    expect(order).toEqual([1, 3, 4, 2, 5]);
  });

  it('finds a tab’s subtree', () => {
    const tabs = [
      { id: 1, parentId: null },
      { id: 2, parentId: 1 },
      { id: 3, parentId: 2 },
      { id: 4, parentId: 1 },
    ];
    expect([...subtreeOf(tabs, 2)].sort()).toEqual([2, 3]);
    expect([...subtreeOf(tabs, 1)].sort()).toEqual([1, 2, 3, 4]);
  });
});
