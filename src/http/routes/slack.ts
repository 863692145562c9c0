import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { WarrantError } from '../../core/errors.js';
import { authenticateSlackRequest, handleSlackEnvelope, type SlackEnvelope, type SlackFollowUp } from '../../app/slack/index.js';
import type { HttpEnv } from '../env.js';

/**
 * `POST /integrations/slack/events` (docs/human-messages.md, docs/api.md): the signature is the credential. A bad
 * signature or a timestamp outside the 5-minute window is a 401 and records nothing.
 */
export function registerSlackRoute(app: OpenAPIHono<HttpEnv>, ctx: AppContext, followUp: SlackFollowUp): void {
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
