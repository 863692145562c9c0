import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import type { Context } from 'hono';
import { WarrantError } from '../core/errors.js';
import type { AppContext } from '../app/kernel.js';
import { errorResponse } from './errors.js';
import { inputGuard } from './input-guard.js';
import { restCaller, type HttpEnv } from './env.js';
import { registerSessionRoutes } from './routes/sessions.js';
import { registerLifecycleRoutes } from './routes/lifecycle.js';
import { registerLiveRoutes } from './routes/live.js';
import { registerLineageRoutes } from './routes/lineage.js';
import { registerSystemRoutes } from './routes/system.js';
import { registerMetricsRoute } from './routes/metrics.js';
import { registerSlackRoute } from './routes/slack.js';
import { slackFollowUp } from '../app/slack/index.js';
import { Metrics } from './metrics.js';
import { registerDeliveryRoutes } from './routes/deliveries.js';
import { registerInboxRoutes } from './routes/inbox.js';
import { registerUncleRoutes } from './routes/uncles.js';
import { registerMessageRoutes } from './routes/messages.js';
import { registerConversationRoutes } from './routes/conversations.js';
import { registerAgentRuntimeRoutes } from './routes/agent-runtimes.js';
import { registerTerminalRoutes } from './routes/terminal.js';
import { registerAuditRoutes } from './routes/audit.js';
import { registerFootprintRoutes } from './routes/footprint.js';
import type { ShutdownGate } from './shutdown-gate.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * A transcript append carries up to 1 MiB of the file as JSON strings: escaping can grow it
 * (a control character becomes six bytes), so its route takes a larger body; the app layer
 * bounds the file's bytes themselves.
 */
const MAX_TRANSCRIPT_BODY_BYTES = 8 * 1024 * 1024;
const TRANSCRIPT_APPEND_PATH = /^\/api\/v1\/sessions\/[^/]+\/transcript$/;

/** Public routes (docs/concepts.md): everything else needs a bearer token. */
const PUBLIC_API_PATHS = new Set(['/api/v1/health', '/api/v1/openapi.json']);

type OpenApiDocument = { paths: Record<string, Record<string, { security?: unknown[]; requestBody?: unknown; responses: Record<string, unknown> }>> } & Record<
  string,
  unknown
>;

const ERROR_REF = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

/**
 * The answers every operation shares come from the middleware in front of the routes (above),
 * so they are documented here, once: the input rules (docs/api.md "Input limits") and schema
 * checks (400), the credential check (401), the body limit (413), a body that is not JSON
 * (415) and an unusable store (503).
 */
function withSharedAnswers(doc: OpenApiDocument): OpenApiDocument {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const r = op.responses;
      r['400'] ??= { description: 'invalid-request (naming the field) or malformed-json', ...ERROR_REF };
      if (!(Array.isArray(op.security) && op.security.length === 0)) r['401'] ??= { description: 'unauthenticated or invalid-token', ...ERROR_REF };
      if (method !== 'get') r['413'] ??= { description: 'body-too-large', ...ERROR_REF };
      // the schema validator answers 415; a route that reads its raw body (Slack's, signed) does not
      if (op.requestBody && path.startsWith('/api/v1/')) {
        r['415'] ??= { description: 'unsupported-media-type: send the body as application/json', ...ERROR_REF };
      }
      r['503'] ??= { description: 'store-unavailable: nothing was written; retry', ...ERROR_REF };
    }
  }
  return doc;
}

interface HttpOptions {
  /** extra surfaces mounted on the same app (MCP, web UI, Slack) */
  mount?: ((app: OpenAPIHono<HttpEnv>) => void)[];
  /** refuses new requests once the node is shutting down (src/cli/serve.ts) */
  gate?: ShutdownGate;
}

export function buildHttpApp(ctx: AppContext, options: HttpOptions = {}): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>({
    // A validation failure names the field (docs/api.md).
    defaultHook: (result) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const field = issue?.path.join('.') || 'body';
        const message =
          issue?.code === 'unrecognized_keys' ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` : (issue?.message ?? 'invalid');
        throw new WarrantError('invalid-request', `${issue?.code === 'unrecognized_keys' ? 'body' : field}: ${message}`, {
          details: {
            field: issue?.code === 'unrecognized_keys' ? issue.keys[0] : field,
            issues: result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
          },
        });
      }
    },
  });

  app.onError((error, c) => errorResponse(c, error, ctx.logger));
  app.notFound((c) => c.json({ error: 'not-found', message: `No route ${c.req.method} ${c.req.path}.` }, 404));

  // first, so a request refused at shutdown costs nothing and touches nothing
  if (options.gate) app.use('*', options.gate.middleware());
  const metrics = new Metrics();
  app.use('*', metrics.middleware());
  const tooLargeFor = (max: number) => (c: Context) => c.json({ error: 'body-too-large', message: `The request body is over the ${max}-byte limit.` }, 413);
  const limits = [MAX_BODY_BYTES, MAX_TRANSCRIPT_BODY_BYTES].map((max) => ({
    max,
    tooLarge: tooLargeFor(max),
    streamed: bodyLimit({ maxSize: max, onError: tooLargeFor(max) }),
  }));
  app.use('*', async (c, next) => {
    // Asking the node adapter for a body builds a full fetch Request, whose abort signal undici
    // tracks until finalization: under load that retained ~1 KB per request (the RSS target).
    // GET and HEAD carry none, and a declared length is checked from the header alone.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const limit = limits[c.req.method === 'POST' && TRANSCRIPT_APPEND_PATH.test(c.req.path) ? 1 : 0]!;
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number.parseInt(length, 10) > limit.max ? limit.tooLarge(c) : next();
    }
    return limit.streamed(c, next);
  });

  app.use('/api/v1/*', async (c, next) => {
    if (PUBLIC_API_PATHS.has(c.req.path)) return next();
    c.set('caller', await restCaller(ctx, c));
    return next();
  });
  app.use('/api/v1/*', inputGuard());

  registerSystemRoutes(app, ctx);
  registerSessionRoutes(app, ctx);
  registerLifecycleRoutes(app, ctx);
  registerLiveRoutes(app, ctx);
  registerMetricsRoute(app, ctx, metrics);
  registerSlackRoute(app, ctx, slackFollowUp);
  registerDeliveryRoutes(app, ctx);
  registerInboxRoutes(app, ctx);
  registerUncleRoutes(app, ctx);
  registerLineageRoutes(app, ctx);
  registerMessageRoutes(app, ctx);
  registerConversationRoutes(app, ctx);
  registerAgentRuntimeRoutes(app, ctx);
  registerTerminalRoutes(app, ctx);
  registerAuditRoutes(app, ctx);
  registerFootprintRoutes(app, ctx);
  for (const mount of options.mount ?? []) mount(app);

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'wrt_f_ fleet key, wrt_s_ session token, wrt_h_ human token, wrt_c_ integration key or wrt_t_ witness credential (terminal routes only)',
  });
  let document: Record<string, unknown> | undefined;
  app.get('/api/v1/openapi.json', (c) => {
    document ??= withSharedAnswers(
      app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: {
          title: 'Warrant',
          version: '0.1.0',
          description: 'The provenance ledger and control plane for fleets of AI agent sessions.',
          // npm's UNLICENSED has no SPDX id: a LicenseRef- is SPDX's form for a license it does not list
          license: { name: 'UNLICENSED (all rights reserved; see package.json)', identifier: 'LicenseRef-Warrant-Proprietary' } as { name: string },
        },
        servers: [{ url: '/', description: 'the Warrant server serving this document (every path is absolute from its root)' }],
        security: [{ bearer: [] }],
      }) as unknown as OpenApiDocument,
    );
    return c.json(document);
  });
  return app;
}
