import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository stands on its own (CONTRIBUTING.md, "Style"): comments and user-facing text
 * cite the design pages in docs/design/, never numbered documents that are not in it, and
 * every design page a file points at exists.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['src', 'test', 'bench', 'scripts', 'docs', 'README.md', 'CONTRIBUTING.md'];
const TEXT_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|json|css|html|sh|ya?ml|txt)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'screenshots', 'fixtures']);

// The fixtures below are assembled so this file itself never holds the phrase it forbids
// (a citation rewrite run over test/ must leave them alone).
const SPEC = ['sp', 'ec'].join('');

/**
 * A citation of a numbered document outside the repository: the word, then 01–09, with a
 * space, a hyphen, nothing, or a line break inside a comment or quote between them.
 */
const CITATION = new RegExp(String.raw`\b${SPEC}(?:[ \t-]*|[ \t]*\r?\n[ \t]*(?:\*|\/\/|#|>)?[ \t]*)0\d(?!\d)`, 'gi');

/** Where `text` cites one: `line: excerpt` for each. */
function specCitations(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(CITATION)) {
    const line = text.slice(0, m.index).split('\n').length;
    out.push(`${line}: ${m[0].replace(/\s+/g, ' ')}`);
  }
  return out;
}

const DESIGN_POINTER = /\bdocs\/design\/([A-Za-z0-9._-]+\.md)/g;

/** The docs/design/*.md pages `text` names that do not exist under `root`. */
function missingDesignPages(text: string, root: string): string[] {
  const missing = new Set<string>();
  for (const m of text.matchAll(DESIGN_POINTER)) if (!existsSync(join(root, 'docs', 'design', m[1]!))) missing.add(`docs/design/${m[1]}`);
  return [...missing].sort();
}

function* textFiles(entry: string): Generator<string> {
  const path = join(ROOT, entry);
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    if (SKIPPED_DIRS.has(entry.split(sep).pop()!)) return;
    for (const child of readdirSync(path).sort()) yield* textFiles(join(entry, child));
  } else if (TEXT_FILE.test(entry)) {
    yield entry.split(sep).join('/');
  }
}

const files = SCANNED.flatMap((entry) => [...textFiles(entry)]);
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative links of markdown `file` (its text `markdown`) that name no file, or no heading of the page they name. */
function brokenLinks(file: string, markdown = read(file)): string[] {
  const broken: string[] = [];
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const href = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:
    const [path, anchor] = href.split('#') as [string, string | undefined];
    const target = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), path);
    if (!existsSync(target)) {
      broken.push(`${href} (no file ${relative(ROOT, target)})`);
      continue;
    }
    if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${href} (no heading #${anchor})`);
  }
  return broken;
}

describe('the repository cites its own design pages', () => {
  it('scans the real tree (a floor, so an empty scan cannot pass)', () => {
    expect(files.filter((f) => f.startsWith('src/')).length).toBeGreaterThan(200);
    expect(files).toContain('README.md');
    expect(files).toContain('docs/design/README.md');
  });

  it('the matcher catches every spelling and leaves other words alone (negative case)', () => {
    const cited = [
      `see ${SPEC} 02`,
      `(${SPEC} 04)`,
      `${SPEC} 02's walk`,
      `${SPEC}-05`,
      `${SPEC}07`,
      `${SPEC.toUpperCase()} 01 §3`,
      `${SPEC[0]!.toUpperCase()}${SPEC.slice(1)} 09.md`,
      `a store setting (${SPEC}\n01: settings …)`,
      ` * as the ${SPEC}\n * 06 says`,
    ];
    for (const text of cited) expect(specCitations(text), JSON.stringify(text)).toHaveLength(1);
    const clean = [`in${SPEC}t 02`, `${SPEC}ification 02`, `a${SPEC}t 03`, `${SPEC} 10`, `${SPEC} 0`, 'docs/design/lineage.md', `openapi ${SPEC}`];
    for (const text of clean) expect(specCitations(text), JSON.stringify(text)).toEqual([]);
    expect(specCitations(`one\ntwo ${SPEC} 03 and ${SPEC} 05`)).toEqual([`2: ${SPEC} 03`, `2: ${SPEC} 05`]);
  });

  it('no file under src, test, bench, scripts or docs, nor README.md or CONTRIBUTING.md, cites a numbered document', () => {
    const found = files.flatMap((file) => specCitations(read(file)).map((c) => `${file}:${c}`));
    expect(found, 'cite docs/design/*.md instead (node design-cite.mjs rewrites them)').toEqual([]);
  });

  it('the link checkers report a page or a heading that does not exist (negative case)', () => {
    const noPage = ['docs/design/no-such', 'page.md'].join('-');
    expect(missingDesignPages(`// docs/design/lineage.md and ${noPage}`, ROOT)).toEqual([noPage]);
    const links = '[a](lineage.md#uncle-edges) [b](lineage.md#no-such-heading) [c](gone.md) [d](../../CONTRIBUTING.md#layers) [e](https://x.example/y.md)';
    const design = ['docs', 'design'].join('/');
    expect(brokenLinks(`${design}/x.md`, links)).toEqual(['lineage.md#no-such-heading (no heading #no-such-heading)', `gone.md (no file ${design}/gone.md)`]);
  });

  it('every docs/design/*.md a file points at exists', () => {
    const missing = files.filter((f) => !f.startsWith('docs/')).flatMap((file) => missingDesignPages(read(file), ROOT).map((p) => `${file}: ${p}`));
    expect(missing).toEqual([]);
  });

  it('the design pages and CONTRIBUTING.md link only to files and headings that exist', () => {
    const pages = files.filter((f) => f.startsWith('docs/design/') && f.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(8);
    const broken = [...pages, 'CONTRIBUTING.md'].flatMap((file) => brokenLinks(file).map((b) => `${file}: ${b}`));
    expect(broken).toEqual([]);
  });
});
