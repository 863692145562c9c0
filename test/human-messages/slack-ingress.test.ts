import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { signSlackRequest } from '../../src/app/slack/signature.js';
import { setSetting } from '../../src/store/settings-repo.js';

const SECRET = 'slack-test-signing-secret';

async function configure(h: Harness) {
  const now = new Date().toISOString();
  await setSetting(h.store.kysely, 'slack_signing_secret', SECRET, now);
  await setSetting(h.store.kysely, 'slack_workspace_url', 'https://acme.slack.com', now);
}

async function slack(h: Harness, payload: unknown, options: { secret?: string; ageSeconds?: number } = {}) {
  const raw = JSON.stringify(payload);
  const ts = String(Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0));
  return h.request('POST', '/integrations/slack/events', {
    raw,
    headers: { 'x-slack-request-timestamp': ts, 'x-slack-signature': signSlackRequest(options.secret ?? SECRET, ts, raw) },
  });
}

let n = 0;
function message(user: string, extra: Record<string, unknown> = {}) {
  n++;
  return {
    type: 'event_callback',
    event_id: `Ev${process.pid}${n}${Date.now()}`,
    event: { type: 'message', channel_type: 'im', user, channel: `D${n}`, ts: `${1700000000 + n}.000100`, text: `hello number ${n}`, ...extra },
  };
}

async function humanMessagesOf(h: Harness, sessionId: number) {
  return h.store.kysely.selectFrom('human_messages').selectAll().where('session_id', '=', sessionId).execute();
}

describeEachDialect('Slack ingress (docs/design/capture.md)', (t) => {
  it('answers the URL-verification challenge', async () => {
    const h = t();
    await configure(h);
    const r = await slack(h, { type: 'url_verification', challenge: 'abc123' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ challenge: 'abc123' });
  });

  it('a DM from a mapped roster human starts a slack session and records slack.dm with its permalink; a retry acts once', async () => {
    const h = t();
    await configure(h);
    const slackId = `U${(Date.now() % 1e8).toString(36).toUpperCase()}A`;
    const { user } = await h.human(uniqueKey('slk'), { slack: [slackId] });
    const payload = message(slackId);
    const r = await slack(h, payload);
    expect(r.status).toBe(200);
    expect(r.body.outcome).toBe('session-started');
    const s = (await h.request('GET', `/api/v1/sessions/${r.body.session_id}`, { token: h.fleetKey })).body.session;
    expect(s).toMatchObject({
      genesis: 'slack',
      scheduling_class: 'priority',
      owner: user.key,
      creator: { kind: 'human', ref: user.key },
      creator_basis: 'authenticated',
      cause_basis: 'authenticated',
    });
    const [m] = await humanMessagesOf(h, s.id);
    expect(m).toMatchObject({
      entry_point: 'slack.dm',
      channel: 'slack',
      content: payload.event.text,
      slack_permalink: `https://acme.slack.com/archives/${payload.event.channel}/p${payload.event.ts.replace('.', '')}`,
    });
    const retry = await slack(h, payload);
    expect(retry.body.outcome).toBe('duplicate');
    expect(await h.store.kysely.selectFrom('sessions').select('id').where('genesis', '=', 'slack').where('owner_user_id', '=', user.id).execute()).toHaveLength(
      1,
    );
  });

  it('a channel mention records slack.channel_message', async () => {
    const h = t();
    await configure(h);
    const slackId = `U${(Date.now() % 1e8).toString(36).toUpperCase()}B`;
    await h.human(uniqueKey('men'), { slack: [slackId] });
    const r = await slack(h, message(slackId, { type: 'app_mention', channel_type: undefined, channel: 'C42', text: '<@UAPP> deploy please' }));
    expect(r.body.outcome).toBe('session-started');
    expect((await humanMessagesOf(h, r.body.session_id))[0]).toMatchObject({ entry_point: 'slack.channel_message', content: '<@UAPP> deploy please' });
  });

  it('records nothing for an unmapped user, a bot, an app, or a subtyped event', async () => {
    const h = t();
    await configure(h);
    const slackId = `U${(Date.now() % 1e8).toString(36).toUpperCase()}C`;
    await h.human(uniqueKey('quiet'), { slack: [slackId] });
    const before = await h.store.kysely
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    for (const payload of [
      message('UNOBODY'),
      message(slackId, { bot_id: 'B1' }),
      message(slackId, { app_id: 'A1' }),
      message(slackId, { subtype: 'bot_message' }),
      message(slackId, { subtype: 'message_changed' }),
    ]) {
      const r = await slack(h, payload);
      expect(r.status).toBe(200);
      expect(r.body.outcome).toBe('ignored');
    }
    const after = await h.store.kysely
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('a bad or stale signature is a 401 and records nothing', async () => {
    const h = t();
    await configure(h);
    const slackId = `U${(Date.now() % 1e8).toString(36).toUpperCase()}D`;
    await h.human(uniqueKey('sig'), { slack: [slackId] });
    const before = await h.store.kysely
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const bad = await slack(h, message(slackId), { secret: 'wrong secret' });
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('slack-signature-invalid');
    const stale = await slack(h, message(slackId), { ageSeconds: 6 * 60 });
    expect(stale.status).toBe(401);
    expect(stale.body.error).toBe('slack-request-stale');
    const unsigned = await h.request('POST', '/integrations/slack/events', { raw: JSON.stringify(message(slackId)) });
    expect(unsigned.status).toBe(401);
    const after = await h.store.kysely
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});

describeEachDialect('Slack thread replies (docs/design/capture.md)', (t) => {
  it('a reply in a thread whose root started a session follows it up and records the human message with its thread permalink', async () => {
    const h = t();
    await configure(h);
    const slackId = `U${(Date.now() % 1e8).toString(36).toUpperCase()}T`;
    await h.human(uniqueKey('thr'), { slack: [slackId] });
    const root = message(slackId, { type: 'app_mention', channel_type: undefined, channel: 'C77', text: '<@UAPP> start' });
    const started = await slack(h, root);
    const sessionId = started.body.session_id;
    const reply = message(slackId, { type: 'message', channel_type: 'channel', channel: 'C77', thread_ts: root.event.ts, text: 'and also this' });
    const r = await slack(h, reply);
    expect(r.body).toMatchObject({ outcome: 'followed-up', session_id: sessionId });
    const msgs = await humanMessagesOf(h, sessionId);
    expect(msgs.map((m) => m.content)).toEqual(['<@UAPP> start', 'and also this']);
    expect(msgs[1]).toMatchObject({ entry_point: 'slack.channel_message', slack_permalink: expect.stringContaining(`thread_ts=${root.event.ts}`) });
    expect(msgs[1]!.inbox_item_id).not.toBeNull();
    const inbox = await h.request('GET', `/api/v1/sessions/${sessionId}/inbox?state=all`, { token: h.fleetKey });
    expect(inbox.body.items.map((i: any) => i.kind)).toEqual(['follow_up']);
    // the same reply delivered again (an app_mention twin, or a retry) acts once
    const twin = await slack(h, { ...reply, event_id: `${reply.event_id}-twin`, event: { ...reply.event, type: 'app_mention' } });
    expect(twin.body.outcome).toBe('duplicate');
    expect(await humanMessagesOf(h, sessionId)).toHaveLength(2);
  });
});
