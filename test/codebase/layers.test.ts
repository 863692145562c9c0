import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { entryViolations, importCycles, importEdges, layerViolations, type ImportEdge } from './import-graph.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * Known violations, each with why it is still here. The test fails on any violation not
 * listed, and on a listed one that is gone (so the list only shrinks). Empty: keep it so.
 */
const KNOWN: Record<string, string> = {};

describe('layer boundaries (import graph of src/)', () => {
  const edges = importEdges(SRC);

  it('sees the real graph (a sanity floor, so an empty scan cannot pass)', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.some((e) => e.from.startsWith('http/') && e.to.startsWith('app/'))).toBe(true);
  });

  it('no surface imports the store, the store imports only core, core imports nothing; nothing new breaks a rule', () => {
    const found = layerViolations(edges);
    const unknown = found.filter((v) => !(v in KNOWN));
    expect(unknown, 'new layer violations — route them through an app use case').toEqual([]);
    const stale = Object.keys(KNOWN).filter((k) => !found.includes(k));
    expect(stale, 'fixed violations still listed in KNOWN — remove them').toEqual([]);
  });

  it('catches a surface reaching into the store, a dynamic import included (negative case)', () => {
    const fixture: ImportEdge[] = [
      { from: 'web/routes/x.tsx', to: 'store/users-repo.js', specifier: '../../store/users-repo.js' },
      { from: 'core/y.ts', to: 'app/access.js', specifier: '../app/access.js' },
      { from: 'hook/hook-main.ts', to: 'cli/api-client.js', specifier: '../cli/api-client.js' },
      { from: 'http/ok.ts', to: 'app/views.js', specifier: '../app/views.js' },
    ];
    expect(layerViolations(fixture)).toEqual([
      'core/y.ts -> app/access.js',
      'hook/hook-main.ts -> cli/api-client.js',
      'web/routes/x.tsx -> store/users-repo.js',
    ]);
    // the scanner reads dynamic imports: server.ts's `await import('../store-access.js')` is an edge
    expect(edges.some((e) => e.from === 'cli/commands/server.ts' && e.to === 'cli/store-access.js')).toBe(true);
    // and CommonJS sources (the hook): `import hookClient = require('./hook-client.cjs')` is an edge
    expect(edges.some((e) => e.from === 'hook/hook-main.cts' && e.to === 'hook/hook-client.cjs')).toBe(true);
    expect(edges.some((e) => e.from === 'cli/commands/hook.ts' && e.to === 'hook/hook-client.cjs')).toBe(true);
  });

  it('surfaces reach the app only through its entry modules (app/<capability>/index.ts, app/kernel.ts)', () => {
    expect(entryViolations(edges), "import the capability's index.ts (export what you need from it)").toEqual([]);
  });

  it('catches a surface importing an app module that is not an entry module (negative case)', () => {
    const fixture: ImportEdge[] = [
      { from: 'http/routes/x.ts', to: 'app/sessions/create-session.js', specifier: '../../app/sessions/create-session.js' },
      { from: 'cli/commands/y.ts', to: 'app/roster.js', specifier: '../../app/roster.js' },
      { from: 'mcp/tools/z.ts', to: 'app/sessions/index.js', specifier: '../../app/sessions/index.js' },
      { from: 'web/w.ts', to: 'app/kernel.js', specifier: '../app/kernel.js' },
      { from: 'app/lineage/v.ts', to: 'app/sessions/delete-session.js', specifier: '../sessions/delete-session.js' },
    ];
    expect(entryViolations(fixture)).toEqual(['cli/commands/y.ts -> app/roster.js', 'http/routes/x.ts -> app/sessions/create-session.js']);
  });

  it('has no import cycles, type-only imports included', () => {
    expect(importCycles(edges), 'break each cycle (move the shared type to a module both import)').toEqual([]);
  });

  it('finds a cycle, a type-only one and a self-import included (negative case)', () => {
    const edge = (from: string, to: string): ImportEdge => ({ from: `${from}.ts`, to: `${to}.js`, specifier: '' });
    const fixture = [
      edge('app/a', 'app/b'),
      edge('app/b', 'app/c'),
      edge('app/c', 'app/a'),
      edge('app/c', 'core/d'),
      edge('store/e', 'store/e'),
      edge('core/d', 'core/f'),
    ];
    expect(importCycles(fixture)).toEqual([['app/a', 'app/b', 'app/c'], ['store/e']]);
  });
});
