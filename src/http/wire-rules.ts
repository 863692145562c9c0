import { z } from '@hono/zod-openapi';

/**
 * Reusable pieces of the wire schemas that carry the server's real input rules, so zod checks
 * them once and the OpenAPI document states them (docs/api.md "OpenAPI"): a client generated
 * from the document is refused only for what the document says.
 */

/** `X | null` that stays nullable in OpenAPI 3.1 also when X is a named component (`.nullable()` on a component loses the null). */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

/** A session id: a positive integer a JSON number can hold exactly. */
export const SessionIdNumber = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** A session ref in a body: an id, or the text forms a path takes (`42`, `#42`, a uid, `uid:<prefix>`). */
export const RefValue = z.union([z.string().min(1).max(200), SessionIdNumber]);

/** Text handed to a model: at least one character that is not white space. */
export const NonBlankText = z.string().regex(/\S/, 'must be non-empty text');

/** Reported names and ids (provider, conversation, path, agent type): 1 to `max` characters, no control characters. */
export const ReportedText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)

    .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters');

/** A list cursor: opaque base64url, passed back unchanged from `next_cursor`. */
export const Cursor = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_-]*$/, 'not a cursor: pass next_cursor unchanged')
  .openapi({ description: "the previous page's `next_cursor`, unchanged (opaque; a cursor of another list is refused)" });

/** A page size. */
export const Limit = z.coerce.number().int().min(1).max(200);

/**
 * A comma-separated list of known values (spaces around items and empty items are ignored);
 * `extra` are values that stand alone (e.g. `all`).
 */
export function commaList(values: readonly string[], description: string, extra: readonly string[] = []) {
  const item = values.map(escapeRegex).join('|');
  const list = `(?: *(?:${item}) *)?(?:,(?: *(?:${item}) *)?)*`;
  const pattern = extra.length > 0 ? `^(?:${list}|${extra.map(escapeRegex).join('|')})$` : `^${list}$`;
  return z
    .string()
    .max(200)
    .regex(new RegExp(pattern), `a comma-separated list of ${values.join(', ')}${extra.length > 0 ? `, or ${extra.join(', ')}` : ''}`)
    .openapi({
      description: `${description}: comma-separated, of ${values.map((v) => `\`${v}\``).join(', ')}${extra.length > 0 ? `; or ${extra.map((v) => `\`${v}\``).join(', ')} alone` : ''}`,
    });
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A time filter: an ISO 8601 date-time (its offset documented; one without is read as local time, as before) or a date. */
export const IsoTime = z.union([z.iso.datetime({ offset: true, local: true }), z.iso.date()]);

/**
 * Who acted, as the deletion list's `actor` filter names them: `fleet`, `system`,
 * `session:<id>`, `client:<name>`, `human:<key>` or a roster key.
 */
export const ActorFilter = z
  .string()
  .max(100)
  .regex(
    /^(?:fleet|system|session:#?[0-9]{1,15}|client:[a-z][a-z0-9-]{0,31}|(?:human:)?[a-z0-9][a-z0-9._-]{0,63})$/,
    'expected fleet, system, session:<id>, client:<name>, human:<key> or a roster key',
  );
