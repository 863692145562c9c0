import type { Hierarchy, HierarchyNode } from '../core/hierarchy-types.js';
import { drawnUnderText, hiddenSeniorsText, hierarchyNote } from './hierarchy-notes.js';
import { sanitizeInline } from './sanitize.js';

/**
 * User text inside an outline line: sanitized (docs/human-messages.md), and with the marks
 * the line's own annotations use escaped, so a title cannot forge "(also senior: #N)" or
 * "← this session".
 */
function lineText(text: string): string {
  let safe = lineTexts.get(text);
  if (safe === undefined) {
    safe = sanitizeInline(text).replace(/[()]/g, '\\$&').replace(/←/g, '\\←');
    // a pure function of the text, and the titles of the trees being read repeat from read to
    // read; kept for short texts only, so the memory stays small (at most ~2 MB)
    if (text.length <= LINE_TEXT_MAX_KEPT_LENGTH) {
      if (lineTexts.size >= LINE_TEXTS_KEPT) lineTexts.clear();
      lineTexts.set(text, safe);
    }
  }
  return safe;
}

const LINE_TEXTS_KEPT = 5_000;
const LINE_TEXT_MAX_KEPT_LENGTH = 120;
const lineTexts = new Map<string, string>();

/**
 * One outline line (docs/concepts.md):
 * `- #104 [worker] {web_ui · priority} Patch the retry loop (also senior: #103) (shown under uncle #103, not its spawn parent #102)`
 */
function outlineLine(n: HierarchyNode): string {
  let line = `- #${n.id}`;
  if (n.agentRoot) line += ` [${lineText(n.agentRoot)}]`;
  line += ` {${n.genesis} · ${n.schedulingClass}}`;
  line += ` ${n.title ? lineText(n.title) : '(untitled)'}`;
  const authenticated = n.alsoSenior.filter((s) => s.basis === 'authenticated').map((s) => `#${s.id}`);
  const declared = n.alsoSenior.filter((s) => s.basis !== 'authenticated').map((s) => `#${s.id}`);
  if (authenticated.length > 0) line += ` (also senior: ${authenticated.join(', ')})`;
  if (declared.length > 0) line += ` (also senior, declared: ${declared.join(', ')})`;
  const hidden = hiddenSeniorsText(n);
  if (hidden) line += ` (${hidden})`;
  if (n.drawnUnder) line += ` (${drawnUnderText(n.drawnUnder)})`;
  if (n.isCurrent) line += ' ← this session';
  return line;
}

/**
 * The outline used by MCP, the CLI and `format=markdown`: indentation is the render parent
 * (two spaces a level), nodes in the hierarchy's depth-first order, then the truncation
 * note when the walk was cut.
 */
export function renderHierarchyOutline(h: Hierarchy): string {
  const indent = new Map<number, number>();
  const lines: string[] = [];
  for (const n of h.nodes) {
    const level = n.renderParentId === null ? 0 : (indent.get(n.renderParentId) ?? 0) + 1;
    indent.set(n.id, level);
    lines.push('  '.repeat(level) + outlineLine(n));
  }
  const note = hierarchyNote(h);
  if (note) lines.push('', `_${note}_`);
  return lines.join('\n');
}
