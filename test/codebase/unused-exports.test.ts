import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readModules, unusedExports } from './unused-exports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Deliberate public entry points: exported for whoever runs them, imported by no module here. */
const ENTRY_POINTS = new Set(['src/cli/main.ts: buildProgram', 'src/cli/main.ts: main']);

describe('exports nothing imports', () => {
  // what may import src/: src itself, the tests, the benchmark and the build scripts
  const modules = readModules(['src', 'test', 'bench', 'scripts'].map((d) => `${ROOT}${d}`));

  it('sees the real tree (a sanity floor, so an empty scan cannot pass)', () => {
    expect(modules.filter((m) => m.path.includes('/src/')).length).toBeGreaterThan(200);
  });

  it('every export of src/ is imported somewhere (or is a listed entry point)', () => {
    const all = unusedExports(modules, ROOT);
    const unused = all.filter((u) => u.startsWith('src/') && !ENTRY_POINTS.has(u));
    expect(unused, 'drop the export keyword (or the declaration, when nothing uses it)').toEqual([]);
    const stale = [...ENTRY_POINTS].filter((e) => !all.includes(e));
    expect(stale, 'entry points listed here that are now imported, or gone').toEqual([]);
  });

  it('finds an unused export, follows re-exports and dynamic imports, and treats a namespace as using all (negative case)', () => {
    const m = (path: string, text: string) => ({ path: `/r/${path}`, text });
    const found = unusedExports(
      [
        m('src/a.ts', 'export const used = 1;\nexport function dead() {}\nexport interface DeadShape { x: number }\nexport type { Hidden } from "./h.js";'),
        m('src/h.ts', 'export type Hidden = string;'),
        m('src/b.ts', 'import { used } from "./a.js";\nconst { lazy } = await import("./c.js");\nimport * as all from "./d.js";'),
        m('src/c.ts', 'export const lazy = 1;\nexport const notLazy = 2;'),
        m('src/d.ts', 'export const viaNamespace = 1;'),
        m('src/e/index.ts', 'export { fromIndex } from "./f.js";'),
        m('src/e/f.ts', 'export const fromIndex = 1;'),
        m('src/g.ts', 'import { fromIndex } from "./e/index.js";'),
      ],
      '/r',
    );
    expect(found).toEqual(['src/a.ts: DeadShape', 'src/a.ts: Hidden', 'src/a.ts: dead', 'src/c.ts: notLazy']);
  });
});
