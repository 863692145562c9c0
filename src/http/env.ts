import type { Context, Input } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Hook, OpenAPIHono, RouteConfig, RouteHandler, z } from '@hono/zod-openapi';
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

/*
 * The wire types: a handler's answer carries, for the compiler only, the body and status it
 * was built with, and `route` accepts only the answers its route's responses declare — a
 * JSON body must be assignable to `z.input` of the declared schema under that status. So a
 * serializer that drifts from the OpenAPI document fails `tsc` (docs/api.md).
 */
declare const wire: unique symbol;
/** A JSON answer: `body` is what was serialized (a phantom field; nothing at run time). */
export type JsonResponse<B, S extends number> = Response & { readonly [wire]: { json: B; status: S } };
/** A `format=markdown` answer. */
export type MarkdownResponse<S extends number> = Response & { readonly [wire]: { markdown: true; status: S } };
/** An answer without a body (`204`). */
export type EmptyResponse<S extends number> = Response & { readonly [wire]: { empty: true; status: S } };

type JsonSchemaOf<C> = C extends { content: { 'application/json': { schema: infer S extends z.ZodType } } } ? S : never;
type AnswerFor<C, S extends number> =
  | ([JsonSchemaOf<C>] extends [never] ? never : JsonResponse<z.input<JsonSchemaOf<C>>, S>)
  | (C extends { content: { 'text/markdown': unknown } } ? MarkdownResponse<S> : never)
  | (C extends { content: unknown } ? never : EmptyResponse<S>);
type StatusOf<R extends RouteConfig> = Extract<keyof R['responses'], number>;
/** Every answer the route's responses declare. */
export type RouteAnswer<R extends RouteConfig> = { [S in StatusOf<R>]: AnswerFor<R['responses'][S], S> }[StatusOf<R>];

type RouteContext<R extends RouteConfig> = Parameters<RouteHandler<R, HttpEnv>>[0];
type PathOf<R extends RouteConfig> = RouteContext<R> extends Context<HttpEnv, infer P extends string, Input> ? P : never;
type InputOf<R extends RouteConfig> = RouteContext<R> extends Context<HttpEnv, string, infer I extends Input> ? I : never;

/** The shared markdown rendering, for `format=markdown` (the CLI prints it as is). */
export function markdown<S extends ContentfulStatusCode = 200>(c: Context, text: string, status?: S): MarkdownResponse<NoInfer<S>> {
  const res = c.text(text.endsWith('\n') ? text : text + '\n', status ?? 200, { 'content-type': 'text/markdown; charset=utf-8' });
  return res as unknown as MarkdownResponse<S>;
}

/** Responds with JSON; the answer's type keeps the body's type for `route` to check. */
export function json<B, S extends ContentfulStatusCode = 200>(c: Context, body: B, status?: S, headers?: Record<string, string>): JsonResponse<B, NoInfer<S>> {
  const res = c.json(body as object, status ?? 200, headers);
  return res as unknown as JsonResponse<B, S>;
}

/** Responds with no body. */
export function noContent(c: Context): EmptyResponse<204> {
  return c.body(null, 204) as unknown as EmptyResponse<204>;
}

/**
 * Registers an OpenAPI route. The route's schemas validate input and document the output;
 * the handler's answer is checked against the declared responses (RouteAnswer). The library
 * is given the route as a plain RouteConfig because its own response typing treats a
 * `text/markdown` answer as any Response, which is looser than RouteAnswer.
 */
export function route<R extends RouteConfig>(
  app: OpenAPIHono<HttpEnv>,
  config: R,
  handler: (c: Context<HttpEnv, PathOf<R>, InputOf<R>>) => Promise<RouteAnswer<R> & Response>,
  hook?: Hook<InputOf<R>, HttpEnv, PathOf<R>, undefined>,
): void {
  app.openapi<RouteConfig, InputOf<R>, PathOf<R>>(config, handler, hook);
}
