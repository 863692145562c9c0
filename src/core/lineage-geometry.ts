/**
 * The session strip's lineage lines (docs/api.md): pure
 * geometry shared by the server's tests and the browser (src/web/client imports it).
 */

/** A box in one coordinate space (the browser's DOMRect has these fields). */
export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

interface LineagePath {
  /** the SVG path data */
  d: string;
  /** the parent end (centre of the parent tab's bottom edge) */
  x1: number;
  y1: number;
  /** the child end (centre of the child tab's bottom edge), where the marker sits */
  x2: number;
  y2: number;
}

/** How far a tab centre may lie outside the strip's visible box and still count as on it. */
const CLIP_TOLERANCE_PX = 4;

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
const round = (v: number): number => Math.round(v * 100) / 100;

function isZeroWidth(r: Rect): boolean {
  return !(r.right - r.left > 0);
}

function centreInside(r: Rect, box: Rect): boolean {
  const cx = (r.left + r.right) / 2;
  const cy = (r.top + r.bottom) / 2;
  return cx >= box.left - CLIP_TOLERANCE_PX && cx <= box.right + CLIP_TOLERANCE_PX && cy >= box.top - CLIP_TOLERANCE_PX && cy <= box.bottom + CLIP_TOLERANCE_PX;
}

/**
 * The U-bridge from a parent tab to a child tab, hanging below the strip, or null when the
 * edge must not be drawn: a zero-width (hidden) tab, or an end whose centre lies outside the
 * strip's visible box by more than 4 px (the strip scrolls; clamping would point at a tab
 * that is not there). `depth` is the child's index among its siblings, so several children
 * of one parent nest instead of overprinting. One formula serves a flat and a wrapped strip.
 *
 * @example
 * lineagePath({left:0,top:0,right:100,bottom:30}, {left:200,top:0,right:300,bottom:30},
 *             {left:0,top:0,right:800,bottom:30}, 0)
 * // → { d: 'M 50 30 C 50 53, 250 53, 250 30', x1: 50, y1: 30, x2: 250, y2: 30 }  (dip 23)
 */
export function lineagePath(parentRect: Rect, childRect: Rect, stripRect: Rect, depth: number): LineagePath | null {
  if (isZeroWidth(parentRect) || isZeroWidth(childRect) || isZeroWidth(stripRect)) return null;
  if (!centreInside(parentRect, stripRect) || !centreInside(childRect, stripRect)) return null;
  const x1 = (parentRect.left + parentRect.right) / 2;
  const x2 = (childRect.left + childRect.right) / 2;
  const y1 = parentRect.bottom;
  const y2 = childRect.bottom;
  const y0 = Math.max(y1, y2);
  const dip = clamp(14 + Math.abs(x2 - x1) * 0.085, 22, 104) + Math.max(0, depth) * 8 + Math.abs(y2 - y1);
  const yc = round(y0 + dip);
  const [a, b, c, e] = [round(x1), round(y1), round(x2), round(y2)];
  return { d: `M ${a} ${b} C ${a} ${yc}, ${c} ${yc}, ${c} ${e}`, x1: a, y1: b, x2: c, y2: e };
}

export interface StripTab {
  id: number;
  /** the lineage parent, when it has one (in or out of the strip) */
  parentId: number | null;
}

export interface StripEdge {
  parentId: number;
  childId: number;
  /** the child's index among its parent's children in the strip, in strip order */
  depth: number;
}

/**
 * The edges to draw: every tab whose lineage parent is also in the strip, with its index
 * among its siblings (in strip order) as the nesting depth. Stable while the strip scrolls.
 *
 * @example lineageEdges([{id:1,parentId:null},{id:2,parentId:1},{id:3,parentId:1}])
 * // → [{parentId:1,childId:2,depth:0},{parentId:1,childId:3,depth:1}]
 */
export function lineageEdges(tabs: readonly StripTab[]): StripEdge[] {
  const present = new Set(tabs.map((t) => t.id));
  const siblings = new Map<number, number>();
  const out: StripEdge[] = [];
  for (const t of tabs) {
    if (t.parentId === null || t.parentId === t.id || !present.has(t.parentId)) continue;
    const depth = siblings.get(t.parentId) ?? 0;
    siblings.set(t.parentId, depth + 1);
    out.push({ parentId: t.parentId, childId: t.id, depth });
  }
  return out;
}

/**
 * The optional "children right after their parent" order: each tab is followed by its
 * subtree (children in their original relative order); tabs whose parent is not in the
 * strip keep their relative order as roots.
 *
 * @example orderChildrenAfterParents([{id:1,parentId:null},{id:2,parentId:null},{id:3,parentId:1}])
 * // → [1, 3, 2]
 */
export function orderChildrenAfterParents(tabs: readonly StripTab[]): number[] {
  const present = new Set(tabs.map((t) => t.id));
  const children = new Map<number, number[]>();
  const roots: number[] = [];
  for (const t of tabs) {
    if (t.parentId !== null && t.parentId !== t.id && present.has(t.parentId)) {
      const list = children.get(t.parentId) ?? [];
      list.push(t.id);
      children.set(t.parentId, list);
    } else roots.push(t.id);
  }
  const out: number[] = [];
  const seen = new Set<number>();
  const visit = (id: number): void => {
    if (seen.has(id)) return;
    seen.add(id);
    out.push(id);
    for (const c of children.get(id) ?? []) visit(c);
  };
  for (const r of roots) visit(r);
  // a corrupt cycle (never written, docs/concepts.md) would leave tabs unvisited: keep them, in order
  for (const t of tabs) visit(t.id);
  return out;
}

/**
 * The tab and every descendant of it among the strip's tabs (the hover highlight).
 *
 * @example subtreeOf([{id:1,parentId:null},{id:2,parentId:1},{id:3,parentId:2}], 2) // → Set {2, 3}
 */
export function subtreeOf(tabs: readonly StripTab[], rootId: number): Set<number> {
  const children = new Map<number, number[]>();
  for (const t of tabs) {
    if (t.parentId === null) continue;
    const list = children.get(t.parentId) ?? [];
    list.push(t.id);
    children.set(t.parentId, list);
  }
  const out = new Set<number>([rootId]);
  const stack = [rootId];
  while (stack.length > 0) {
    for (const c of children.get(stack.pop()!) ?? []) {
      if (!out.has(c)) {
        out.add(c);
        stack.push(c);
      }
    }
  }
  return out;
}
