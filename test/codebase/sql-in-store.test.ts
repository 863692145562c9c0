import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** ARCHITECTURE.md's layer rule: the store is the only place that knows SQL. */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** A query built or run: Kysely's builders, or a raw `sql` template. */
const QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql(<[^>]*>)?`/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** `file:line` of every query outside `store/`. */
function queriesOutsideStore(files: { path: string; text: string }[]): string[] {
  return files.flatMap(({ path, text }) =>
    path.startsWith('store/') ? [] : text.split('\n').flatMap((line, i) => (QUERY.test(line) && !/^\s*(\/\/|\*)/.test(line) ? [`${path}:${i + 1}`] : [])),
  );
}

describe('SQL lives only in the store', () => {
  it('no module outside src/store builds or runs a query', () => {
    const files = sourceFiles(SRC).map((p) => ({ path: relative(SRC, p), text: readFileSync(p, 'utf8') }));
    expect(files.length).toBeGreaterThan(100);
    expect(queriesOutsideStore(files), 'move the query into a store/ function and call that').toEqual([]);
  });

  it('catches a builder, a raw template and a typed template outside the store, and allows them inside (negative case)', () => {
    const fixture = [
      { path: 'app/x.ts', text: "const r = await db.selectFrom('sessions').selectAll().execute();" },
      { path: 'http/routes/y.ts', text: 'await sql`select 1`.execute(db);' },
      { path: 'web/z.tsx', text: 'const n = sql<number>`count(*)`;\n// a comment naming .insertInto( is fine' },
      { path: 'store/sessions-repo.ts', text: "await db.deleteFrom('sessions').execute();" },
    ];
    expect(queriesOutsideStore(fixture)).toEqual(['app/x.ts:1', 'http/routes/y.ts:1', 'web/z.tsx:1']);
  });
});
