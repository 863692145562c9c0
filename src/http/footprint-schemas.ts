import { z } from '@hono/zod-openapi';
import { ActorFilter, Cursor, Limit } from './wire-rules.js';

const ACTOR_FORMS = 'a roster key (or `human:<key>`), `session:<id>`, `client:<name>`, `fleet` or `system`';

/** `GET /api/v1/events`: what an actor or credential did (docs/attribution.md "What a person caused"). */
export const EventsAcrossQuery = z.object({
  actor: ActorFilter.optional().openapi({ description: `who acted: ${ACTOR_FORMS}` }),
  cause: ActorFilter.optional().openapi({ description: `on whose behalf: ${ACTOR_FORMS}` }),
  credential: z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .openapi({ description: 'a credential id: every act made with that token' }),
  limit: Limit.optional(),
  cursor: Cursor.optional(),
});

/** `caused_by` of `GET /api/v1/sessions`. */
export const CausedByFilter = ActorFilter.openapi({
  description: `only sessions this actor caused — directly (their cause or creator) or through sessions it caused, wherever they sit: ${ACTOR_FORMS}`,
});
