import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importEdges, layerViolations, type ImportEdge } from './import-graph.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * Known violations, each with why it is still here. The test fails on any violation not
 * listed, and on a listed one that is gone (so the list only shrinks).
 */
const KNOWN: Record<string, string> = {
  'integrations/otel-export.ts -> store/sessions-repo.js': 'the OTel exporter reads sessions and human messages itself; it should go through an app use case',
  'integrations/otel-export.ts -> store/settings-repo.js': 'the exporter keeps its cursor in a setting; same move',
  'web/banner.ts -> composition.js': 'a type-only import: the start banner\'s shape is declared in the composition root',
};

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
    expect(layerViolations(fixture)).toEqual(['core/y.ts -> app/access.js', 'hook/hook-main.ts -> cli/api-client.js', 'web/routes/x.tsx -> store/users-repo.js']);
    // the scanner reads dynamic imports: server.ts's `await import('../store-access.js')` is an edge
    expect(edges.some((e) => e.from === 'cli/commands/server.ts' && e.to === 'cli/store-access.js')).toBe(true);
  });
});
