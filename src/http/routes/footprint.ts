import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { listEventsAcross } from '../../app/sessions/index.js';
import { eventFiltersText, renderEventsAcross } from '../../render/attribution-markdown.js';
import { serializeEvent } from '../../render/record-json.js';
import { json, markdown, route, type HttpEnv } from '../env.js';
import { EventsAcrossQuery } from '../footprint-schemas.js';
import { errorAnswer, jsonOrMarkdown } from '../responses.js';
import { EventSchema, FormatQuery } from '../schemas.js';

/** The reverse question (docs/attribution.md "What a person caused"): events by actor, cause and credential. */
export function registerFootprintRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/events',
      operationId: 'listEvents',
      summary: 'Events across sessions by actor, cause and credential (newest first, cursor-paginated)',
      description:
        'What an actor did (`actor`), what was done on their behalf (`cause`), or every act made with one token (`credential`: a ' +
        "revoked or leaked token's footprint). The filters combine; with none, every event the caller may see. Only events on " +
        'sessions the caller may see; a session actor the caller may not see is an unnamed session, and a filter naming one ' +
        'matches nothing. Events of a deleted session went with it: its deletion record remains (`GET ' +
        '/api/v1/session_deletions`). Refused authentications are not recorded anywhere, so they are not here.',
      request: { query: EventsAcrossQuery.extend(FormatQuery.shape) },
      responses: {
        200: jsonOrMarkdown(z.object({ events: z.array(EventSchema), next_cursor: z.string().nullable() }), 'a page of events, newest first'),
        400: errorAnswer('invalid-request: a malformed filter, or a cursor of another list'),
        403: errorAnswer('forbidden'),
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const filters = {
        ...(q.actor !== undefined ? { actor: q.actor } : {}),
        ...(q.cause !== undefined ? { cause: q.cause } : {}),
        ...(q.credential !== undefined ? { credential: q.credential } : {}),
      };
      const result = await listEventsAcross(ctx, c.get('caller'), {
        ...filters,
        ...(q.limit ? { limit: q.limit } : {}),
        ...(q.cursor ? { cursor: q.cursor } : {}),
      });
      if (q.format === 'markdown') return markdown(c, renderEventsAcross(result.events, eventFiltersText(filters), result.nextCursor));
      return json(c, { events: result.events.map(serializeEvent), next_cursor: result.nextCursor });
    },
  );
}
