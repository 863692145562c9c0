import { WarrantError } from '../../core/errors.js';
import { listUsers } from '../../store/users-repo.js';
import { getSetting } from '../../store/settings-repo.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { createSession } from '../sessions/create-session.js';
import type { WriteScope } from '../write-scope.js';
import { SETTING_SLACK_SIGNING_SECRET } from '../bootstrap.js';
import { verifySlackSignature } from './signature.js';
import { anySlackDeliverySeen, claimSlackDeliveries, insertSlackThread, sessionOfSlackThread } from '../../store/slack-repo.js';

export const SETTING_SLACK_WORKSPACE_URL = 'slack_workspace_url';

/** The slice of a Slack Events API payload ingress reads. */
export interface SlackEnvelope {
  type?: string;
  challenge?: string;
  event_id?: string;
  team_id?: string;
  event?: SlackMessageEvent;
}

interface SlackMessageEvent {
  type?: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  text?: string;
  channel?: string;
  channel_type?: string;
  ts?: string;
  thread_ts?: string;
}

type SlackOutcome =
  | { outcome: 'challenge'; challenge: string }
  | { outcome: 'duplicate' }
  | { outcome: 'ignored'; reason: string }
  | { outcome: 'session-started'; sessionId: number }
  | { outcome: 'followed-up'; sessionId: number };

function slackPermalink(workspaceUrl: string | null, channel: string, ts: string, threadTs?: string): string | null {
  if (!workspaceUrl) return null;
  const base = `${workspaceUrl.replace(/\/+$/, '')}/archives/${encodeURIComponent(channel)}/p${ts.replace('.', '')}`;
  return threadTs && threadTs !== ts ? `${base}?thread_ts=${encodeURIComponent(threadTs)}&cid=${encodeURIComponent(channel)}` : base;
}

/** Dedupe keys claimed in the act's own transaction: a Slack retry never acts twice. */
async function claimDelivery(w: WriteScope, keys: string[]): Promise<void> {
  await claimSlackDeliveries(w.tx, keys, w.now);
}

async function seenBefore(ctx: AppContext, keys: string[]): Promise<boolean> {
  return anySlackDeliverySeen(ctx.store.kysely, keys);
}

/**
 * Handles one verified Slack event (docs/human-messages.md): a DM to the app or a channel
 * message that mentions it starts a session; a reply in a thread whose root started a session
 * follows it up. Only mapped roster humans are attributed; bots, apps and subtyped events
 * (edits, deletions) record nothing.
 */
export async function handleSlackEnvelope(ctx: AppContext, envelope: SlackEnvelope, followUp: SlackFollowUp): Promise<SlackOutcome> {
  if (envelope.type === 'url_verification') return { outcome: 'challenge', challenge: String(envelope.challenge ?? '') };
  if (envelope.type !== 'event_callback' || !envelope.event) return { outcome: 'ignored', reason: `unsupported payload type ${envelope.type ?? 'none'}` };
  const e = envelope.event;
  if (e.bot_id || e.app_id) return { outcome: 'ignored', reason: 'posted by a bot or an app' };
  if (e.subtype) return { outcome: 'ignored', reason: `subtype ${e.subtype} (edits, deletions and bot messages are not a human speaking)` };
  if (!e.user || !e.channel || !e.ts || typeof e.text !== 'string') return { outcome: 'ignored', reason: 'incomplete message event' };
  const isDm = e.type === 'message' && e.channel_type === 'im';
  const isMention = e.type === 'app_mention';
  if (!isDm && !isMention && e.type !== 'message') return { outcome: 'ignored', reason: `event type ${e.type}` };

  const keys = [`msg:${e.channel}:${e.ts}`, ...(envelope.event_id ? [`event:${envelope.event_id}`] : [])];
  if (await seenBefore(ctx, keys)) return { outcome: 'duplicate' };

  const user = (await listUsers(ctx.store.kysely)).find((u) => !u.removedAt && u.slackUserIds.includes(e.user!));
  if (!user) return { outcome: 'ignored', reason: 'the Slack user is not mapped to a roster human' };
  const caller: Caller = {
    principal: { kind: 'human', userId: user.id, userKey: user.key, isAdmin: user.isAdmin },
    credentialId: null,
    surface: 'slack',
    via: 'slack',
  };
  const workspace = await getSetting(ctx.store.kysely, SETTING_SLACK_WORKSPACE_URL);
  const inThread = e.thread_ts !== undefined && e.thread_ts !== e.ts;
  const permalink = slackPermalink(workspace, e.channel, e.ts, e.thread_ts);
  const entryPoint = isDm ? 'slack.dm' : 'slack.channel_message';

  if (inThread) {
    const threadSession = await sessionOfSlackThread(ctx.store.kysely, e.channel, e.thread_ts!);
    if (threadSession !== null) {
      await followUp(ctx, caller, threadSession, { entryPoint, content: e.text, slackPermalink: permalink }, (w) => claimDelivery(w, keys));
      return { outcome: 'followed-up', sessionId: threadSession };
    }
    // a reply in a thread nobody started: only a DM or a mention starts something
    if (!isDm && !isMention) return { outcome: 'ignored', reason: 'a thread reply outside any Warrant thread' };
  } else if (!isDm && !isMention) {
    return { outcome: 'ignored', reason: 'a channel message that does not mention the app' };
  }

  const result = await createSession(
    ctx,
    caller,
    { prompt: e.text },
    {
      humanWords: { entryPoint, content: e.text, slackPermalink: permalink },
      within: async (w, session) => {
        await claimDelivery(w, keys);
        await insertSlackThread(w.tx, e.channel!, e.thread_ts ?? e.ts!, session.id);
      },
    },
  ).catch((error: unknown) => {
    if (ctx.store.isUniqueViolation(error)) return null; // a concurrent retry won
    throw error;
  });
  if (!result) return { outcome: 'duplicate' };
  return { outcome: 'session-started', sessionId: result.session.id };
}

/** The follow-up path Slack thread replies take (the inbox delivery, with capture in its transaction). */
export type SlackFollowUp = (
  ctx: AppContext,
  caller: Caller,
  sessionId: number,
  words: { entryPoint: 'slack.dm' | 'slack.channel_message'; content: string; slackPermalink: string | null },
  within: (w: WriteScope) => Promise<void>,
) => Promise<void>;

function slackNotConfigured(): WarrantError {
  return new WarrantError(
    'slack-not-configured',
    'Slack ingress is not configured on this deployment (no signing secret); set it with `warrant settings set slack_signing_secret`.',
  );
}

/**
 * The signature is the credential (docs/human-messages.md): the configured signing secret must
 * sign this exact body within the 5-minute replay window, or the request is a 401 and records nothing.
 */
export async function authenticateSlackRequest(
  ctx: AppContext,
  raw: string,
  timestampHeader: string | undefined,
  signatureHeader: string | undefined,
): Promise<void> {
  const secret = await getSetting(ctx.store.kysely, SETTING_SLACK_SIGNING_SECRET);
  if (!secret) throw slackNotConfigured();
  const verdict = verifySlackSignature(secret, timestampHeader, raw, signatureHeader, ctx.clock.now().getTime());
  if (verdict === 'ok') return;
  const message =
    verdict === 'stale'
      ? 'The Slack request timestamp is outside the 5-minute replay window.'
      : verdict === 'missing'
        ? 'The Slack signature headers are missing.'
        : 'The Slack signature does not match the configured signing secret.';
  throw new WarrantError(verdict === 'stale' ? 'slack-request-stale' : 'slack-signature-invalid', message);
}
