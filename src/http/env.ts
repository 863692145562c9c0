import type { Context } from 'hono';
import type { Caller } from '../app/kernel.js';
import type { AppContext } from '../app/kernel.js';
import { authenticate } from '../app/kernel.js';

export type HttpEnv = { Variables: { caller: Caller } };

export function bearerOf(c: Context): string | null {
  const header = c.req.header('authorization');
  if (!header) return null;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  return m ? m[1]!.trim() : null;
}

/** The only routes a witness credential may call (docs/design/terminal-channel.md). */
const TERMINAL_ROUTE = /^\/api\/v1\/sessions\/[^/]+\/terminal\/(turns|prompts|close|alive)$/;

/** Authenticates the REST caller; the CLI names itself in a header (informational, docs/attribution.md). */
export async function restCaller(ctx: AppContext, c: Context): Promise<Caller> {
  const client = c.req.header('x-warrant-client');
  const witnessRoute = c.req.method === 'POST' && TERMINAL_ROUTE.test(c.req.path);
  return authenticate(ctx, bearerOf(c), 'rest', client === 'cli' ? 'cli' : 'rest', { witnessRoute });
}

/** The shared markdown rendering, for `format=markdown` (the CLI prints it as is). */
export function markdown(c: Context, text: string, status = 200): Response {
  return c.text(text.endsWith('\n') ? text : text + '\n', status as 200, { 'content-type': 'text/markdown; charset=utf-8' });
}

/** Responds with JSON; handlers return plain Responses so the wire objects need no casts. */
export function json(c: Context, body: unknown, status = 200): Response {
  return c.json(body as object, status as 200);
}

import type { OpenAPIHono, RouteConfig, RouteHandler } from '@hono/zod-openapi';

/**
 * Registers an OpenAPI route whose handler returns a plain Response. The route's schemas
 * still validate input and document the output; the serializers own the wire shape, so the
 * typed-response check is bypassed here, in one place.
 */
export function route<R extends RouteConfig>(
  app: OpenAPIHono<HttpEnv>,
  config: R,
  handler: (c: Parameters<RouteHandler<R, HttpEnv>>[0]) => Promise<Response>,
): void {
  app.openapi(config, handler as never);
}
