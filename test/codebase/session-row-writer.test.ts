import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/**
 * A session row changes through `WriteScope.updateSession` only: it is what marks a change to a
 * column a walk reads, so the walk caches' versions are bumped with it (write-scope.ts). A use
 * case calling the store's compare-and-set directly would change a title no cached walk hears of.
 */
it("only the write scope calls the store's session-row compare-and-set", () => {
  const callers = sourceFiles(SRC)
    .filter((p) => /\bupdateSessionIfVersion\b/.test(readFileSync(p, 'utf8')))
    .map((p) => relative(SRC, p))
    .sort();
  expect(callers).toEqual(['app/write-scope.ts', 'store/sessions-repo.ts']);
});
