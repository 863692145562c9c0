import { createRoute, z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import type { EmptyResponse, JsonResponse, MarkdownResponse, RouteAnswer } from '../../src/http/env.js';
import { SessionSchema } from '../../src/http/schemas.js';
import { QueueChangeResponse } from '../../src/http/inbox-schemas.js';
import type { serializeSession } from '../../src/render/session-json.js';
import type { serializeQueueChange } from '../../src/render/inbox-json.js';

/**
 * The REST handlers' answers are checked against their route's declared responses at compile
 * time (src/http/env.ts). These are compile-time facts: `npm run typecheck` fails when one stops
 * holding; the test only makes them visible in the suite.
 */
const probe = createRoute({
  method: 'get',
  path: '/probe',
  responses: {
    200: {
      description: 'ok',
      content: {
        'application/json': { schema: z.object({ a: z.number(), b: z.enum(['x', 'y']).nullable() }) },
        'text/markdown': { schema: { type: 'string' as const } },
      },
    },
    204: { description: 'nothing' },
  },
});
type Answer = RouteAnswer<typeof probe>;
type Accepts<T> = T extends Answer ? true : false;

const facts = {
  matchingBody: true satisfies Accepts<JsonResponse<{ a: number; b: 'x' | null }, 200>>,
  markdown: true satisfies Accepts<MarkdownResponse<200>>,
  empty204: true satisfies Accepts<EmptyResponse<204>>,
  wrongFieldType: false satisfies Accepts<JsonResponse<{ a: string; b: null }, 200>>,
  missingField: false satisfies Accepts<JsonResponse<{ a: number }, 200>>,
  widerEnum: false satisfies Accepts<JsonResponse<{ a: number; b: string }, 200>>,
  undeclaredStatus: false satisfies Accepts<JsonResponse<{ a: number; b: null }, 201>>,
  markdownUndeclaredStatus: false satisfies Accepts<MarkdownResponse<201>>,
  plainResponse: false satisfies Accepts<Response>,
  // the real serializers against the real schemas
  session: true satisfies ReturnType<typeof serializeSession> extends z.input<typeof SessionSchema> ? true : false,
  queueChange: true satisfies ReturnType<typeof serializeQueueChange> extends z.input<typeof QueueChangeResponse> ? true : false,
};

describe('wire types joined to the response schemas', () => {
  it('accepts only declared statuses and bodies assignable to the declared schema', () => {
    expect(Object.keys(probe.responses)).toEqual(['200', '204']);
    expect(facts).toEqual({
      matchingBody: true,
      markdown: true,
      empty204: true,
      wrongFieldType: false,
      missingField: false,
      widerEnum: false,
      undeclaredStatus: false,
      markdownUndeclaredStatus: false,
      plainResponse: false,
      session: true,
      queueChange: true,
    });
  });
});
