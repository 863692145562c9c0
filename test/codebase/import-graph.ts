import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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
  cli: ['cli', 'app', 'core', 'render', 'http', 'integrations', 'runner', 'hook', 'mcp', 'web', 'composition', 'config', 'config-error', 'server-secret'],
  runner: ['runner', 'core', 'cli'],
  // the hook entry point loads only node: modules, so a hook costs one small process start
  hook: ['hook'],
};

export interface ImportEdge {
  from: string; // path relative to src/, with forward slashes
  to: string;
  specifier: string;
}

const IMPORT_RE =
  /(?:^|[^\w.])(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]|(?:^|[^\w.])import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[^\w.])import\s+['"]([^'"]+)['"]|(?:^|[^\w.])import\s+\w+\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)/gm;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx|cts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every relative import (static, re-export, dynamic, side-effect) of every file under `srcDir`. */
export function importEdges(srcDir: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const specifier = m[1] ?? m[2] ?? m[3] ?? m[4]!;
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

/** The layers that are surfaces: they reach the app only through its entry modules. */
export const SURFACES: readonly string[] = ['http', 'mcp', 'web', 'cli', 'runner', 'hook', 'integrations'];

/** An app entry module: a capability's `app/<capability>/index.ts`, or the shared kernel `app/kernel.ts`. */
export function isAppEntry(path: string): boolean {
  return /^app\/[a-z0-9-]+\/index\.js$/.test(path) || path === 'app/kernel.js';
}

/** Surface imports of an app module that is not an entry module, as `from -> to` lines. */
export function entryViolations(edges: readonly ImportEdge[]): string[] {
  return edges
    .filter((e) => SURFACES.includes(layerOf(e.from) ?? '') && e.to.startsWith('app/') && !isAppEntry(e.to))
    .map((e) => `${e.from} -> ${e.to}`)
    .sort();
}

/**
 * The import cycles of the graph (type-only imports included), one per strongly connected
 * component, each as its files in order. Edge targets are `.js`/`.cjs` paths; sources `.ts`/`.tsx`/`.cts`.
 */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  // a CommonJS module (.cts, imported as .cjs) is not the ES module of the same name beside it
  const key = (p: string) => p.replace(/\.c[jt]s$/, '.c').replace(/\.(js|ts|tsx)$/, '');
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    const from = key(e.from);
    const to = key(e.to);
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
  }
  // Tarjan's strongly connected components, iteratively (the graph is deep enough to matter)
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  for (const root of [...next.keys()].sort()) {
    if (indexOf.has(root)) continue;
    const work: Array<{ node: string; it: Iterator<string> }> = [];
    const visit = (node: string) => {
      indexOf.set(node, index);
      low.set(node, index++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, it: [...(next.get(node) ?? [])].sort()[Symbol.iterator]() });
    };
    visit(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const step = top.it.next();
      if (!step.done) {
        const to = step.value;
        if (!indexOf.has(to)) visit(to);
        else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, indexOf.get(to)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === indexOf.get(top.node)) {
        const component: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          component.push(n);
        } while (n !== top.node);
        if (component.length > 1 || next.get(top.node)?.has(top.node)) cycles.push(component.sort());
      }
    }
  }
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

// static value imports and re-exports; `import type` is erased by the compiler and loads nothing
export const STATIC_IMPORT =
  /^\s*(?:import|export)\s+(?!type\s)[^'"`;]*?from\s*['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|^\s*import\s+\w+\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)/gm;

/**
 * The modules a process loads up front from `entry` (relative to `srcDir`): the closure of its
 * static value imports (dynamic imports load later, when they run), and the packages it reaches.
 */
export function staticImportClosure(srcDir: string, entry: string): { modules: string[]; packages: Set<string> } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const stack = [resolve(srcDir, entry)];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      if (spec.startsWith('node:')) continue;
      if (!spec.startsWith('.')) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
        continue;
      }
      const path = resolve(dirname(file), spec);
      const base = path.replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, path.replace(/\.cjs$/, '.cts')].find((p) => existsSync(p));
      if (target) stack.push(target);
    }
  }
  return { modules: [...seen].map((p) => relative(srcDir, p).replaceAll('\\', '/')).sort(), packages };
}
