import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import type { Hono } from 'hono';
import type { HostGuard } from '../http/host-guard.js';

/**
 * `/assets/*` (docs/concepts.md: static assets need no credential): the files `npm run build` writes
 * to dist/web/assets — the bundled client module, htmx and its SSE extension, styles. The
 * directory is found from this module's place (src/web or dist/web) at the package root.
 */
export const ASSET_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/web/assets');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

export function mountAssets(app: Hono<any>, guard: HostGuard, dir = ASSET_DIR): void {
  const cache = new Map<string, Asset>();
  const load = (name: string): Asset | null => {
    const hit = cache.get(name);
    if (hit) return hit;
    const ext = name.slice(name.lastIndexOf('.'));
    const file = join(dir, name);
    if (!TYPES[ext] || !existsSync(file)) return null;
    const body = readFileSync(file);
    const asset = { body, type: TYPES[ext], etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    cache.set(name, asset);
    return asset;
  };
  app.get('/assets/:name', (c) => {
    if (!guard.allows(c.req.header('host') ?? null)) return c.text('Host not allowed.', 403);
    const name = c.req.param('name') ?? '';
    // a flat directory of known files: no path can climb out of it
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) return c.text('Not found.', 404);
    const asset = load(name);
    if (!asset) return c.text(existsSync(dir) ? 'Not found.' : 'The web assets are not built: run `npm run build`.', 404);
    const headers = { 'content-type': asset.type, etag: asset.etag, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' };
    if (c.req.header('if-none-match') === asset.etag) return c.body(null, 304, headers);
    return c.body(new Uint8Array(asset.body), 200, headers);
  });
}
