import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  type McpHandlerRequestOptions,
} from '@modelcontextprotocol/server';
import type { AppContext } from '../app/kernel.js';
import { authenticate } from '../app/kernel.js';
import { WarrantError } from '../core/errors.js';
import { errorResponse, toWarrantError } from '../http/errors.js';
import { bearerOf, type HttpEnv } from '../http/env.js';
import { McpServerPool } from './server.js';
import type { ToolGroup } from './tool.js';
import type { HostGuard } from '../http/host-guard.js';

/** RFC 9728's well-known path; `{path}` is inserted after it for a resource with a path (`/mcp`, `/mcp/self`). */
const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

const OAUTH_NOT_OFFERED =
  'Warrant issues its own bearer tokens (a wrt_f_ fleet key, wrt_s_ session token, wrt_h_ human token or wrt_c_ integration key): ' +
  'send one as Authorization: Bearer <token>; without one /mcp answers unauthenticated, with a wrong one invalid-token.';

/** The origin the client reached: the Host it sent, on the request's scheme (the host guard checks Host on /mcp). */
function originOf(c: Context): string {
  const url = new URL(c.req.url);
  return `${url.protocol}//${c.req.header('host') ?? url.host}`;
}

/**
 * The protected-resource metadata (RFC 9728) an MCP client reads after a 401 (the MCP
 * authorization spec): the resource, bearer tokens in the header, and no
 * `authorization_servers` — Warrant issues its tokens itself (docs/api.md "MCP"), so there is
 * no OAuth sign-in to start; the documentation field says where a token comes from.
 */
function protectedResourceMetadata(origin: string, resourcePath: string): Record<string, unknown> {
  return {
    resource: `${origin}${resourcePath}`,
    resource_name: 'Warrant',
    bearer_methods_supported: ['header'],
    resource_documentation: `${origin}/api/v1/openapi.json`,
    warrant_credentials: `No OAuth. ${OAUTH_NOT_OFFERED}`,
  };
}

/**
 * RFC 6750's challenge on every 401 (MCP clients read it): Bearer, a realm, our message, and
 * `resource_metadata` (the MCP authorization spec) pointing at the document above, which names
 * no authorization server.
 */
function bearerChallenge(error: WarrantError, metadataUrl: string): string {
  // a quoted-string holds printable ASCII only, without quotes or backslashes
  const description = error.message.replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, "'");
  const code = error.token === 'invalid-token' ? ', error="invalid_token"' : '';
  return `Bearer realm="warrant"${code}, error_description="${description}", resource_metadata="${metadataUrl}"`;
}

const mcpPools = new WeakMap<AppContext, McpServerPool>();

/** A JSON text's value, or undefined when it is not JSON (the SDK then answers its parse error). */
function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * A lone 2025-era `tools/list` request answered from the group's listing, serialised once: the
 * JSON the SDK's exchange would send (test/mcp/server-reuse.test.ts compares the two byte for
 * byte), without an exchange for a list that never changes while the process runs. Null for
 * anything the SDK treats otherwise — a batch, params (a cursor), an id it would not accept, an
 * Accept header it would refuse, a protocol version it does not support — which it then serves.
 */
function cachedToolList(request: Request, message: unknown, listJson: () => string): Response | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0' || m.method !== 'tools/list' || Object.keys(m).some((k) => k !== 'jsonrpc' && k !== 'method' && k !== 'id' && k !== 'params'))
    return null;
  if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params) || Object.keys(m.params).length > 0)) return null;
  if (!(typeof m.id === 'string' || Number.isSafeInteger(m.id))) return null;
  const accept = request.headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return null;
  const version = request.headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  return new Response(`{"result":${listJson()},"jsonrpc":"2.0","id":${JSON.stringify(m.id)}}`, {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

/** The MCP server pool serving `ctx`'s HTTP mount (tests and the bench read its counters). */
export function mcpServerPoolOf(ctx: AppContext): McpServerPool | undefined {
  return mcpPools.get(ctx);
}

/** Mounts `/mcp` (the `sessions` group) and `/mcp/self` (the `self_session` group). */
export function mountMcp(ctx: AppContext, guard: HostGuard) {
  return (app: OpenAPIHono<HttpEnv>): void => {
    // one pool of reused servers per node; the caller travels with each request, not the instance
    const pool = mcpPools.get(ctx) ?? new McpServerPool(ctx);
    mcpPools.set(ctx, pool);
    const handlerOf = (group: ToolGroup) => createMcpHandler(({ era }) => pool.acquire(group, era), { onerror: (e) => ctx.logger.debug({ err: e }, 'mcp') });
    const handlers: Record<ToolGroup, ReturnType<typeof createMcpHandler>> = { sessions: handlerOf('sessions'), self_session: handlerOf('self_session') };
    /**
     * A 2025-era POST, served as the SDK's stateless fallback serves it but answered with one
     * JSON body (the transport's JSON response mode, which every Streamable HTTP client accepts)
     * instead of an SSE stream wrapped in a second one: no tool sends anything before its result.
     */
    const serveLegacyPost = async (group: ToolGroup, request: Request, options: McpHandlerRequestOptions): Promise<Response> => {
      const server = pool.acquire(group, 'legacy');
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(request, options);
      } finally {
        // the instance goes back to the pool once closed (McpServerPool.lease)
        await transport.close().catch(() => {});
        await server.close().catch(() => {});
      }
    };
    const serve = (group: ToolGroup) => async (c: Context<HttpEnv>) => {
      try {
        await guard.check(c.req.raw);
        const bearer = bearerOf(c);
        const caller = await authenticate(ctx, bearer, 'mcp', 'mcp');
        if (group === 'self_session' && caller.principal.kind !== 'session') {
          throw new WarrantError('forbidden', 'The self_session MCP server serves a session token only; use /mcp with other credentials.');
        }
        // Read once here (the body limit has run), so the SDK neither reads nor classifies it again.
        // Detached from the client's abort signal: the SDK closes the served instance when the
        // request aborts, and after the exchange the instance is back in the pool serving another
        // request (a disconnect must never close someone else's exchange). Tool calls are short.
        const body = c.req.method === 'POST' ? await c.req.text() : undefined;
        const options: McpHandlerRequestOptions = { authInfo: { token: bearer!, clientId: 'warrant', scopes: [], extra: { caller } } };
        const parsed = body !== undefined && isJsonContentType(c.req.header('content-type') ?? null) ? parseJson(body) : undefined;
        if (parsed !== undefined) {
          options.parsedBody = parsed.value;
          // with the body given, the legacy leg reads only the request's headers (and never its signal)
          if (await isLegacyRequest(c.req.raw, parsed.value)) {
            return cachedToolList(c.req.raw, parsed.value, () => pool.toolListJson(group)) ?? (await serveLegacyPost(group, c.req.raw, options));
          }
        }
        // everything else (modern traffic, other methods, a body that is not JSON) as the SDK serves it
        const request = new Request(c.req.url, { method: c.req.method, headers: c.req.raw.headers, ...(body !== undefined ? { body } : {}) });
        return await handlers[group].fetch(request, options);
      } catch (error) {
        const res = errorResponse(c, error, ctx.logger);
        const metadataUrl = `${originOf(c)}${PROTECTED_RESOURCE_PATH}${c.req.path}`;
        if (res.status === 401) res.headers.set('WWW-Authenticate', bearerChallenge(toWarrantError(error)!, metadataUrl));
        return res;
      }
    };
    // public, like /api/v1/health: what a client needs to know before it holds a token
    for (const path of ['', '/mcp', '/mcp/self']) {
      app.get(`${PROTECTED_RESOURCE_PATH}${path}`, (c) => c.json(protectedResourceMetadata(originOf(c), path)));
    }
    // A client that starts OAuth anyway falls back to registering at the origin (RFC 7591's
    // default path): it gets Warrant's refusal and where a token comes from, not a bare 404.
    app.post('/register', (c) => c.json({ error: 'not-found', message: `This Warrant server offers no OAuth sign-in. ${OAUTH_NOT_OFFERED}` }, 404));
    app.all('/mcp', serve('sessions'));
    app.all('/mcp/self', serve('self_session'));
  };
}
