import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { WarrantError } from '../../core/errors.js';
import { authenticateSlackRequest, handleSlackEnvelope, type SlackEnvelope, type SlackFollowUp } from '../../app/slack/index.js';
import type { HttpEnv } from '../env.js';
import { ErrorSchema } from '../schemas.js';
import { SessionIdNumber } from '../wire-rules.js';

const err = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });

/**
 * The route as the OpenAPI document states it. Documented, not validated: the signature covers
 * the raw body, so the handler reads the text itself before parsing it.
 */
const SLACK_EVENTS_ROUTE = createRoute({
  method: 'post',
  path: '/integrations/slack/events',
  operationId: 'receiveSlackEvent',
  summary: "Slack's Events API request URL (signed by Slack; no bearer token)",
  description:
    "Slack calls it; nothing else can. The credential is Slack's signature of the exact body with the configured signing secret, " +
    'within a 5-minute window. `url_verification` answers the challenge; an `event_callback` message from a mapped roster human ' +
    'in a DM to the app, or a channel message that mentions it, starts a session; a reply in its thread follows it up. ' +
    'Bots, apps, edits and deletions record nothing (`ignored`); a Slack retry never acts twice (`duplicate`).',
  security: [],
  request: {
    headers: z.object({
      'X-Slack-Request-Timestamp': z.string().openapi({ description: 'Unix seconds when Slack sent it' }),
      'X-Slack-Signature': z.string().openapi({ description: '`v0=` and the hex HMAC-SHA256 of `v0:{timestamp}:{body}`' }),
      'X-Slack-Retry-Num': z.string().optional().openapi({ description: "Slack's retry count (logged; a retry is deduplicated)" }),
    }),
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              type: z.string().openapi({ description: '`url_verification` or `event_callback` (anything else is ignored)' }),
              challenge: z.string().optional().openapi({ description: 'url_verification: echoed back' }),
              event_id: z.string().optional(),
              team_id: z.string().optional(),
              event: z.object({}).catchall(z.unknown()).optional().openapi({ description: 'the Slack event (a `message` or `app_mention`)' }),
            })
            .catchall(z.unknown())
            .openapi('SlackEnvelope', { description: 'a Slack Events API payload (the fields Warrant reads)' }),
        },
      },
    },
  },
  responses: {
    200: {
      description: 'the challenge (url_verification), or what the event did',
      content: {
        'application/json': {
          schema: z.union([
            z.object({ challenge: z.string() }),
            z.object({
              ok: z.literal(true),
              outcome: z.enum(['duplicate', 'ignored', 'session-started', 'followed-up']),
              session_id: SessionIdNumber.optional().openapi({ description: 'session-started / followed-up: the session' }),
            }),
          ]),
        },
      },
    },
    401: err('slack-signature-invalid (missing or wrong signature) or slack-request-stale (timestamp outside the 5-minute window): nothing recorded'),
    404: err('slack-not-configured: no signing secret is set'),
  },
});

/**
 * `POST /integrations/slack/events` (docs/human-messages.md, docs/api.md): the signature is the credential. A bad
 * signature or a timestamp outside the 5-minute window is a 401 and records nothing.
 */
export function registerSlackRoute(app: OpenAPIHono<HttpEnv>, ctx: AppContext, followUp: SlackFollowUp): void {
  app.openAPIRegistry.registerPath(SLACK_EVENTS_ROUTE);
  app.post('/integrations/slack/events', async (c) => {
    const raw = await c.req.text();
    await authenticateSlackRequest(ctx, raw, c.req.header('x-slack-request-timestamp'), c.req.header('x-slack-signature'));
    let envelope: SlackEnvelope;
    try {
      envelope = JSON.parse(raw) as SlackEnvelope;
    } catch {
      throw new WarrantError('malformed-json', 'The Slack request body is not valid JSON.');
    }
    if (c.req.header('x-slack-retry-num')) ctx.logger.info({ retry: c.req.header('x-slack-retry-num'), event: envelope.event_id }, 'slack retry');
    const result = await handleSlackEnvelope(ctx, envelope, followUp);
    if (result.outcome === 'challenge') return c.json({ challenge: result.challenge });
    if (result.outcome === 'ignored') ctx.logger.info({ event: envelope.event_id, reason: result.reason }, 'slack event recorded nothing');
    return c.json({ ok: true, outcome: result.outcome, ...('sessionId' in result ? { session_id: result.sessionId } : {}) });
  });
}
