import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { WarrantError } from '../core/errors.js';
import { isStoreUnavailableError as isStoreUnavailable } from '../app/kernel.js';

/**
 * The one error mapper every surface uses (docs/api.md): anything thrown becomes a
 * `WarrantError` from the closed vocabulary (core/errors.ts) or an unknown error, and each
 * surface's rendering of it is here — the REST body and status, the MCP tool error, the web
 * UI's refusal, the CLI exit code. An unknown error is logged with context and answers
 * `internal-error` without internals.
 */

const INTERNAL_MESSAGE = 'Something went wrong inside Warrant; the error was logged.';

/** Maps anything thrown to a refusal of the vocabulary, or null for an unknown error. */
export function toWarrantError(error: unknown): WarrantError | null {
  if (error instanceof WarrantError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 400 && /json/i.test(error.message)) return new WarrantError('malformed-json', 'The request body is not valid JSON.');
    if (error.status === 415) return new WarrantError('unsupported-media-type', 'Send the body as application/json.');
    if (error.status === 413) return new WarrantError('body-too-large', 'The request body is over the 1 MiB limit.');
    if (error.status < 500) return new WarrantError('invalid-request', error.message || 'The request is invalid.');
  }
  if (error instanceof SyntaxError && /JSON/.test(error.message)) return new WarrantError('malformed-json', 'The request body is not valid JSON.');
  if (error instanceof URIError) return new WarrantError('invalid-request', 'The URL is not validly encoded.');
  // PostgreSQL text cannot hold U+0000 (22021); the input was the problem, not the store
  if (String((error as { code?: unknown })?.code ?? '') === '22021')
    return new WarrantError('invalid-request', 'A text value contains a NUL character (U+0000), which cannot be stored; remove it.');
  if (isStoreUnavailable(error)) return new WarrantError('store-unavailable', 'The store could not be used; nothing was written. Retry.');
  return null;
}

/** A refusal to show to the user (a web form, a fragment); an unknown error is rethrown to the surface's handler. */
export function refusalOf(error: unknown): WarrantError {
  const known = toWarrantError(error);
  if (!known) throw error;
  return known;
}

/** The refusal, or `internal-error` for an unknown error, which is logged with `context`. */
export function refusalOrInternal(error: unknown, logger: Logger, context: Record<string, unknown>, what: string): WarrantError {
  const known = toWarrantError(error);
  if (known) return known;
  logger.error({ err: error, ...context }, what);
  return new WarrantError('internal-error', INTERNAL_MESSAGE);
}

/** REST: `{error, message, ...details}` with the token's status. */
export function errorResponse(c: Context, error: unknown, logger: Logger): Response {
  const e = refusalOrInternal(error, logger, { method: c.req.method, path: c.req.path }, 'unhandled error');
  return c.json(e.toBody(), e.status as 400);
}

/** MCP: a tool error carrying the same body as REST, the token and the sentence as its text. */
export function toolErrorResult(error: unknown, logger: Logger, tool: string) {
  const e = refusalOrInternal(error, logger, { tool }, 'unhandled MCP tool error');
  return { isError: true, content: [{ type: 'text' as const, text: `${e.token}: ${e.message}` }], structuredContent: e.toBody() };
}
