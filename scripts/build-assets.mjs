// Bundles the browser modules (src/web/client/*.ts) with esbuild into dist/web/assets.
// Runs as part of `npm run build`, which `npm start` runs: users need no build step.
import { existsSync, mkdirSync, readdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const clientDir = 'src/web/client';
const outDir = 'dist/web/assets';
mkdirSync(outDir, { recursive: true });
if (existsSync(clientDir)) {
  const entries = readdirSync(clientDir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(clientDir, f));
  if (entries.length > 0) {
    await build({ entryPoints: entries, bundle: true, format: 'esm', target: 'es2022', minify: true, sourcemap: true, outdir: outDir, logLevel: 'warning' });
  }
}
// htmx 2 and its SSE extension, served from our own origin (the CSP allows nothing else).
const vendored = [
  ['node_modules/htmx.org/dist/htmx.min.js', 'htmx.min.js'],
  ['node_modules/htmx-ext-sse/dist/sse.min.js', 'sse.js'],
];
for (const [from, to] of vendored) {
  if (!existsSync(from)) throw new Error(`missing ${from}: run npm install`);
  copyFileSync(from, join(outDir, to));
}
const staticDir = 'src/web/static';
if (existsSync(staticDir)) {
  for (const f of readdirSync(staticDir)) copyFileSync(join(staticDir, f), join(outDir, f));
}
