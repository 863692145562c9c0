import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import { WarrantError } from '../core/errors.js';
import { isStoreUnavailableError as isStoreUnavailable } from '../app/context.js';


/** Maps anything thrown into the one error format, in exactly one place (docs/api.md). */
export function toWarrantError(error: unknown): WarrantError | null {
  if (error instanceof WarrantError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 400 && /json/i.test(error.message)) return new WarrantError('malformed-json', 'The request body is not valid JSON.');
    if (error.status === 415) return new WarrantError('unsupported-media-type', 'Send the body as application/json.');
    if (error.status === 413) return new WarrantError('body-too-large', 'The request body is over the 1 MiB limit.');
    if (error.status < 500) return new WarrantError('invalid-request', error.message || 'The request is invalid.', { status: error.status });
  }
  if (error instanceof SyntaxError && /JSON/.test(error.message)) return new WarrantError('malformed-json', 'The request body is not valid JSON.');
  if (error instanceof URIError) return new WarrantError('invalid-request', 'The URL is not validly encoded.');
  // PostgreSQL text cannot hold U+0000 (22021); the input was the problem, not the store
  if (String((error as { code?: unknown })?.code ?? '') === '22021') return new WarrantError('invalid-request', 'A text value contains a NUL character (U+0000), which cannot be stored; remove it.');
  if (isStoreUnavailable(error)) return new WarrantError('store-unavailable', 'The store could not be used; nothing was written. Retry.');
  return null;
}

export function errorResponse(c: Context, error: unknown, logger: Logger): Response {
  const known = toWarrantError(error);
  if (known) return c.json(known.toBody(), known.status as 400);
  logger.error({ err: error, method: c.req.method, path: c.req.path }, 'unhandled error');
  return c.json({ error: 'internal-error', message: 'Something went wrong inside Warrant; the error was logged.' }, 500);
}
