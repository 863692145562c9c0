import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../app/kernel.js';
import type { HttpEnv } from '../http/env.js';
import type { HostGuard } from '../http/host-guard.js';
import { mountAssets } from './assets.js';
import { registerAuthRoutes } from './routes/auth-routes.js';
import { registerInputRoutes } from './routes/input-routes.js';
import { registerProvenanceRoutes } from './routes/provenance-routes.js';
import { registerRosterRoutes } from './routes/roster-routes.js';
import { registerPersonRoutes } from './routes/person-routes.js';
import { registerSessionRoutes } from './routes/session-routes.js';

/**
 * The web UI (docs/api.md), mounted on the service's Hono app beside REST and MCP.
 * Every route is registered through `webRoute` (web-request.ts), which applies the Host/Origin
 * allowlist, the sign-in cookie, CSRF and the admin gate per route — no middleware is
 * registered on paths the UI does not own.
 */
export function mountWeb(ctx: AppContext, guard: HostGuard) {
  return (app: OpenAPIHono<HttpEnv>): void => {
    mountAssets(app, guard);
    registerAuthRoutes(app, ctx, guard);
    registerRosterRoutes(app, ctx, guard);
    registerPersonRoutes(app, ctx, guard);
    registerSessionRoutes(app, ctx, guard);
    registerProvenanceRoutes(app, ctx, guard);
    registerInputRoutes(app, ctx, guard);
  };
}
