import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What every `warrant` command loads before it parses its arguments: the static imports
 * reachable from src/cli/main.ts. The store, the server and their packages load only in the
 * commands that use them (dynamic imports): loading them up front cost each command start about
 * half a second (bench/README.md, "The CLI starts without the server").
 */

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

// static value imports and re-exports; `import type` is erased by the compiler and loads nothing
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\s)[^'"`;]*?from\s*['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm;

function staticClosure(entry: string): { modules: string[]; packages: Set<string> } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('node:')) continue;
      if (!spec.startsWith('.')) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
        continue;
      }
      const base = resolve(dirname(file), spec).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((p) => existsSync(p));
      if (target) stack.push(target);
    }
  }
  return { modules: [...seen].map((p) => relative(SRC, p).replaceAll('\\', '/')).sort(), packages };
}

describe('the CLI starts without the server', () => {
  const { modules, packages } = staticClosure(`${SRC}/cli/main.ts`);

  it('sees the command modules (a sanity floor, so an empty scan cannot pass)', () => {
    expect(modules).toContain('cli/commands/sessions.ts');
    expect(modules).toContain('cli/store-access.ts');
    expect(modules.length).toBeGreaterThan(20);
  });

  it('loads no store, app, server, MCP or web module, and no package but commander, before a command runs (the agent-config helpers are plain files and may)', () => {
    const heavy = modules.filter((m) => /^(store|app|http|mcp|web)\//.test(m) || ['composition.ts', 'server-secret.ts', 'config.ts'].includes(m));
    expect(heavy).toEqual([]);
    expect([...packages]).toEqual(['commander']);
  });

  it('the scan finds a static import of the store and ignores `import type` (negative case)', () => {
    expect([..."import { openStore } from '../store/connect.js';".matchAll(STATIC_IMPORT)].map((m) => m[1])).toEqual(['../store/connect.js']);
    expect([..."import type { X } from '../store/connect.js';".matchAll(STATIC_IMPORT)]).toEqual([]);
    expect([..."import { a, type B } from '../store/connect.js';".matchAll(STATIC_IMPORT)].map((m) => m[1])).toEqual(['../store/connect.js']);
  });
});
