import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { Caller } from '../app/kernel.js';
import type { AppContext } from '../app/kernel.js';
import { authenticate } from '../app/kernel.js';
import { WarrantError } from '../core/errors.js';
import { errorResponse, toWarrantError } from '../http/errors.js';
import { bearerOf, type HttpEnv } from '../http/env.js';
import { buildMcpServer } from './server.js';
import type { ToolGroup } from './tool.js';
import type { HostGuard } from '../http/host-guard.js';

/**
 * RFC 6750's challenge on every 401 (MCP clients read it): Bearer, a realm, and our message.
 * No `resource_metadata`: Warrant issues its tokens itself, so there is no OAuth
 * authorization server for a client to discover, and pointing at one would start a sign-in
 * that cannot succeed and hide the message.
 */
function bearerChallenge(error: WarrantError): string {
  // a quoted-string holds printable ASCII only, without quotes or backslashes
  const description = error.message.replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, "'");
  const code = error.token === 'invalid-token' ? ', error="invalid_token"' : '';
  return `Bearer realm="warrant"${code}, error_description="${description}"`;
}

/** Mounts `/mcp` (the `sessions` group) and `/mcp/self` (the `self_session` group). */
export function mountMcp(ctx: AppContext, guard: HostGuard) {
  return (app: OpenAPIHono<HttpEnv>): void => {
    const handlers: Record<ToolGroup, ReturnType<typeof createMcpHandler>> = {
      sessions: createMcpHandler(({ authInfo }) => buildMcpServer(ctx, authInfo!.extra!.caller as Caller, 'sessions'), { onerror: (e) => ctx.logger.debug({ err: e }, 'mcp') }),
      self_session: createMcpHandler(({ authInfo }) => buildMcpServer(ctx, authInfo!.extra!.caller as Caller, 'self_session'), { onerror: (e) => ctx.logger.debug({ err: e }, 'mcp') }),
    };
    const serve = (group: ToolGroup) => async (c: Context<HttpEnv>) => {
      try {
        await guard.check(c.req.raw);
        const bearer = bearerOf(c);
        const caller = await authenticate(ctx, bearer, 'mcp', 'mcp');
        if (group === 'self_session' && caller.principal.kind !== 'session') {
          throw new WarrantError('forbidden', 'The self_session MCP server serves a session token only; use /mcp with other credentials.');
        }
        return await handlers[group].fetch(c.req.raw, { authInfo: { token: bearer!, clientId: 'warrant', scopes: [], extra: { caller } } });
      } catch (error) {
        const res = errorResponse(c, error, ctx.logger);
        if (res.status === 401) res.headers.set('WWW-Authenticate', bearerChallenge(toWarrantError(error)!));
        return res;
      }
    };
    app.all('/mcp', serve('sessions'));
    app.all('/mcp/self', serve('self_session'));
  };
}
