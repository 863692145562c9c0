import { z } from 'zod';
import { listEventsAcross } from '../../app/sessions/index.js';
import { eventFiltersText, renderEventsAcross } from '../../render/attribution-markdown.js';
import { serializeEvent } from '../../render/record-json.js';
import { morePages } from '../../render/session-markdown.js';
import { ActorFilter } from '../../http/wire-rules.js';
import { defineTool, type ToolDefinition } from '../tool.js';

const ACTOR_FORMS = 'a roster key (or `human:<key>`), `session:<id>`, `client:<name>`, `fleet` or `system`';

/** The reverse question (docs/attribution.md "What a person caused"): `GET /api/v1/events` as a tool. */
const listEventsTool = defineTool({
  name: 'list_events',
  groups: ['sessions'],
  title: 'List events by actor, cause or credential',
  description: () =>
    'What an actor did (`actor`), what was done on their behalf (`cause`), or every act made with one token (`credential`, a ' +
    'credential id), across every session you may see, newest first. The filters combine; with none, every event you may see. ' +
    'Events of a deleted session went with it (its deletion record remains); refused authentications are recorded nowhere. ' +
    'Paged like list_sessions (`next_cursor`).',
  inputSchema: () =>
    z.object({
      actor: ActorFilter.optional().describe(`who acted: ${ACTOR_FORMS}`),
      cause: ActorFilter.optional().describe(`on whose behalf: ${ACTOR_FORMS}`),
      credential: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional().describe('a credential id: every act made with that token'),
      limit: z.number().int().min(1).max(200).optional().describe('at most this many (default 100)'),
      cursor: z.string().max(200).optional().describe('the `next_cursor` of the previous page'),
    }),
  annotations: { readOnlyHint: true },
  handler: async (ctx, caller, args) => {
    const filters = {
      ...(args.actor !== undefined ? { actor: args.actor } : {}),
      ...(args.cause !== undefined ? { cause: args.cause } : {}),
      ...(args.credential !== undefined ? { credential: args.credential } : {}),
    };
    const r = await listEventsAcross(ctx, caller, {
      ...filters,
      ...(args.limit ? { limit: args.limit } : {}),
      ...(args.cursor ? { cursor: args.cursor } : {}),
    });
    const hint = (c: string) => `call list_events again with the same filters and cursor "${c}"`;
    return {
      text: renderEventsAcross(r.events, eventFiltersText(filters), r.nextCursor, hint),
      data: { events: r.events.map(serializeEvent), next_cursor: r.nextCursor },
      notes: morePages(r.nextCursor, hint),
    };
  },
});

export const FOOTPRINT_TOOLS: ToolDefinition[] = [listEventsTool];
