import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { MARKERS, renderRouteList, renderToolList, replaceBetween } from '../helpers/api-doc-lists.js';
import { openHarness } from '../helpers/harness.js';

const FILE = resolve(import.meta.dirname, '../../docs/api.md');

/**
 * docs/api.md lists every documented route and every MCP tool, from the live catalogue: when a
 * route or tool is added, renamed or re-described, this fails until the lists are regenerated.
 * `node scripts/gen-api-docs.mjs` runs this file with WARRANT_WRITE_API_DOCS=1, which writes them.
 */
it('docs/api.md lists the served OpenAPI operations and MCP tools exactly (regenerate: node scripts/gen-api-docs.mjs)', async () => {
  const h = await openHarness('sqlite');
  try {
    const current = readFileSync(FILE, 'utf8');
    const generated = replaceBetween(replaceBetween(current, MARKERS.routes, await renderRouteList(h)), MARKERS.tools, await renderToolList(h));
    if (process.env.WARRANT_WRITE_API_DOCS === '1') writeFileSync(FILE, generated);
    else expect(current, 'docs/api.md drifted from the live catalogue: run `node scripts/gen-api-docs.mjs` and commit docs/api.md').toBe(generated);
  } finally {
    await h.close();
  }
});
