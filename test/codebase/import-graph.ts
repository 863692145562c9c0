import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The layer rules (ARCHITECTURE.md, CONTRIBUTING.md): which top-level directory of src/ may
 * import which. A file directly in src/ (the composition root, config) may import anything.
 */
export const LAYER_RULES: Record<string, readonly string[]> = {
  core: ['core'],
  store: ['store', 'core'],
  app: ['app', 'core', 'store', 'render'],
  render: ['render', 'core', 'app'],
  integrations: ['integrations', 'app', 'core', 'render'],
  http: ['http', 'app', 'core', 'render', 'integrations', 'mcp', 'web'],
  mcp: ['mcp', 'app', 'core', 'render', 'http'],
  web: ['web', 'app', 'core', 'render', 'http'],
  // the process entry point: it also wires the composition root, the config and the secret
  cli: ['cli', 'app', 'core', 'render', 'http', 'integrations', 'runner', 'hook', 'mcp', 'web', 'composition', 'config', 'server-secret'],
  runner: ['runner', 'core', 'cli'],
  // the hook entry point loads only node:net, so a hook costs one small process start
  hook: ['hook'],
};

export interface ImportEdge {
  from: string; // path relative to src/, with forward slashes
  to: string;
  specifier: string;
}

const IMPORT_RE = /(?:^|[^\w.])(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]|(?:^|[^\w.])import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[^\w.])import\s+['"]([^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every relative import (static, re-export, dynamic, side-effect) of every file under `srcDir`. */
export function importEdges(srcDir: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const specifier = m[1] ?? m[2] ?? m[3]!;
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      edges.push({ from: relative(srcDir, file).split(sep).join('/'), to: relative(srcDir, target).split(sep).join('/'), specifier });
    }
  }
  return edges;
}

function layerOf(path: string): string | null {
  const i = path.indexOf('/');
  return i === -1 ? null : path.slice(0, i);
}

/** The edges that break LAYER_RULES, as `from -> to` lines. */
export function layerViolations(edges: readonly ImportEdge[], rules: Record<string, readonly string[]> = LAYER_RULES): string[] {
  const out: string[] = [];
  for (const e of edges) {
    const from = layerOf(e.from);
    if (from === null) continue; // the composition root
    const to = layerOf(e.to) ?? e.to.replace(/\.js$/, '');
    const allowed = rules[from];
    if (!allowed) out.push(`${e.from} -> ${e.to} (no rule for layer "${from}")`);
    else if (!allowed.includes(to)) out.push(`${e.from} -> ${e.to}`);
  }
  return out.sort();
}
