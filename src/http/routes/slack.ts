import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/context.js';
import { getSetting } from '../../store/settings-repo.js';
import { SETTING_SLACK_SIGNING_SECRET } from '../../app/bootstrap.js';
import { verifySlackSignature } from '../../app/slack/signature.js';
import { handleSlackEnvelope, slackNotConfigured, type SlackEnvelope, type SlackFollowUp } from '../../app/slack/ingress.js';
import { WarrantError } from '../../core/errors.js';
import type { HttpEnv } from '../env.js';

/**
 * `POST /integrations/slack/events` (docs/human-messages.md, docs/api.md): the signature is the credential. A bad
 * signature or a timestamp outside the 5-minute window is a 401 and records nothing.
 */
export function registerSlackRoute(app: OpenAPIHono<HttpEnv>, ctx: AppContext, followUp: SlackFollowUp): void {
  app.post('/integrations/slack/events', async (c) => {
    const secret = await getSetting(ctx.store.kysely, SETTING_SLACK_SIGNING_SECRET);
    if (!secret) throw slackNotConfigured();
    const raw = await c.req.text();
    const verdict = verifySlackSignature(secret, c.req.header('x-slack-request-timestamp'), raw, c.req.header('x-slack-signature'), ctx.clock.now().getTime());
    if (verdict !== 'ok') {
      const message =
        verdict === 'stale'
          ? 'The Slack request timestamp is outside the 5-minute replay window.'
          : verdict === 'missing'
            ? 'The Slack signature headers are missing.'
            : 'The Slack signature does not match the configured signing secret.';
      throw new WarrantError(verdict === 'stale' ? 'slack-request-stale' : 'slack-signature-invalid', message, { status: 401 });
    }
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
