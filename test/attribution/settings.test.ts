import { expect, it } from 'vitest';
import { systemCaller, type Caller } from '../../src/app/caller.js';
import { changeSetting, getSettingView, listSettingViews } from '../../src/app/settings.js';
import { auditPage } from '../../src/store/audit-repo.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';

/** docs/design/sessions.md: settings every node must agree on live in the store; `warrant settings get|set` (docs/design/surfaces.md). */
const admin = systemCaller('cli');

async function settingEntries(h: Harness, key: string) {
  return (await auditPage(h.store.kysely, 0, 1_000_000)).map((r) => JSON.parse(r.entry)).filter((e) => e.kind === 'setting_changed' && e.key === key);
}

async function refusal(p: Promise<unknown>): Promise<{ token: string; message: string }> {
  try {
    await p;
  } catch (error) {
    return error as { token: string; message: string };
  }
  throw new Error('expected a refusal');
}

describeEachDialect('settings (admin)', (t) => {
  it('lists every setting with its default; unknown keys and the server secret check are refused with tokens', async () => {
    const h = t();
    const all = await listSettingViews(h.ctx, admin);
    expect(all.map((s) => s.key)).toEqual([
      'admin_user',
      'deployment_mode',
      'slack_signing_secret',
      'slack_workspace_url',
      'allowed_hosts',
      'checkpoint_key',
      'audit_origin',
      'checkpoint_interval',
      'auto_archive_after',
      'delete_archived_after',
      'message_retention',
      'message_store_capacity',
      'transcripts',
      'server_secret_check',
    ]);
    // the store holds a check value of the secret, never the secret
    const check = all.find((s) => s.key === 'server_secret_check')!;
    expect(check).toMatchObject({ isSet: true, settable: false });
    expect(check.value).toMatch(/^v1:[0-9a-f]{64}$/);
    expect(check.value).not.toContain(h.ctx.serverSecret.toString('hex'));
    expect(await refusal(changeSetting(h.ctx, admin, 'colour', 'blue'))).toMatchObject({ token: 'unknown-setting' });
    // the checkpoints' origin line: a key name's rules
    expect(await refusal(changeSetting(h.ctx, admin, 'audit_origin', 'has space'))).toMatchObject({ token: 'invalid-setting' });
    expect((await changeSetting(h.ctx, admin, 'audit_origin', 'acme.example/warrant')).value).toBe('acme.example/warrant');
    expect(await refusal(changeSetting(h.ctx, admin, 'server_secret_check', 'abc'))).toMatchObject({ token: 'invalid-setting' });
    expect(await refusal(changeSetting(h.ctx, admin, 'server_secret', 'abc'))).toMatchObject({ token: 'unknown-setting' });
  });

  it('only an admin may read or change settings', async () => {
    const h = t();
    const { user } = await h.human(uniqueKey('norm'));
    const caller: Caller = {
      principal: { kind: 'human', userId: user.id, userKey: user.key, isAdmin: false },
      credentialId: null,
      surface: 'rest',
      via: 'rest',
    };
    expect(await refusal(listSettingViews(h.ctx, caller))).toMatchObject({ token: 'forbidden' });
    expect(await refusal(changeSetting(h.ctx, caller, 'checkpoint_interval', '2h'))).toMatchObject({ token: 'forbidden' });
  });

  it('admin_user must be an existing admin on the roster', async () => {
    const h = t();
    const plain = await h.human(uniqueKey('plain'));
    const boss = await h.human(uniqueKey('boss'), { admin: true });
    expect((await refusal(changeSetting(h.ctx, admin, 'admin_user', 'no-such-user'))).message).toMatch(/no roster user/);
    expect((await refusal(changeSetting(h.ctx, admin, 'admin_user', plain.user.key))).message).toMatch(/is not an admin/);
    expect((await changeSetting(h.ctx, admin, 'admin_user', boss.user.key)).value).toBe(boss.user.key);
    expect((await settingEntries(h, 'admin_user')).at(-1)).toMatchObject({ action: 'set', value: boss.user.key, actor_basis: 'authenticated' });
  });

  it('the Slack signing secret is validated, masked when read, and never written to the log', async () => {
    const h = t();
    expect(await refusal(changeSetting(h.ctx, admin, 'slack_signing_secret', 'short'))).toMatchObject({ token: 'invalid-setting' });
    const secret = 'abcdef0123456789abcdef0123456789';
    const v = await changeSetting(h.ctx, admin, 'slack_signing_secret', secret);
    expect(v.value).not.toContain(secret);
    expect((await getSettingView(h.ctx, admin, 'slack_signing_secret', { reveal: true })).value).toBe(secret);
    const entries = await settingEntries(h, 'slack_signing_secret');
    expect(entries.at(-1)).toMatchObject({ action: 'set', value: { set: true } });
    expect(JSON.stringify(entries)).not.toContain(secret);
  });

  it('allowed hosts: host names and addresses only, normalized; no schemes, ports, paths or wildcards', async () => {
    const h = t();
    const v = await changeSetting(h.ctx, admin, 'allowed_hosts', 'Warrant.Example.com, 10.0.0.7 [::1],warrant.example.com');
    expect(v.value).toBe('warrant.example.com, 10.0.0.7, [::1]');
    for (const bad of ['https://x.example', 'x.example:8080', '*.example.com', 'x.example/path', '300.1.1.1', '', 'bad_host']) {
      expect(await refusal(changeSetting(h.ctx, admin, 'allowed_hosts', bad)), bad).toMatchObject({ token: 'invalid-setting' });
    }
    expect((await changeSetting(h.ctx, admin, 'allowed_hosts', null)).isSet).toBe(false);
    expect((await settingEntries(h, 'allowed_hosts')).map((e) => e.action)).toEqual(['set', 'unset']);
  });

  it('the checkpoint key: generated or given, shown and logged as its public verifier key only', async () => {
    const h = t();
    const v = await changeSetting(h.ctx, admin, 'checkpoint_key', 'generate:audit-2026');
    expect(v.value).toMatch(/^audit-2026\+[0-9a-f]{8}\+/);
    const stored = (await getSettingView(h.ctx, admin, 'checkpoint_key', { reveal: true })).value!;
    expect(stored.startsWith('PRIVATE+KEY+audit-2026+')).toBe(true);
    expect(await refusal(changeSetting(h.ctx, admin, 'checkpoint_key', 'PRIVATE+KEY+nope'))).toMatchObject({ token: 'invalid-setting' });
    // setting the same key again changes nothing and logs nothing
    const before = (await settingEntries(h, 'checkpoint_key')).length;
    await changeSetting(h.ctx, admin, 'checkpoint_key', stored);
    const entries = await settingEntries(h, 'checkpoint_key');
    expect(entries).toHaveLength(before);
    expect(entries.at(-1).value).toEqual({ verifier_key: v.value });
    expect(JSON.stringify(entries)).not.toContain('PRIVATE');
  });

  it('durations: a number and a unit, or off, with a floor per setting', async () => {
    const h = t();
    expect((await changeSetting(h.ctx, admin, 'auto_archive_after', '168h')).value).toBe('1w');
    expect((await changeSetting(h.ctx, admin, 'auto_archive_after', 'off')).value).toBe('off');
    expect(await refusal(changeSetting(h.ctx, admin, 'auto_archive_after', 'soon'))).toMatchObject({ token: 'invalid-setting' });
    expect((await refusal(changeSetting(h.ctx, admin, 'auto_archive_after', '30m'))).message).toMatch(/at least 1h/);
    expect((await refusal(changeSetting(h.ctx, admin, 'delete_archived_after', '2h'))).message).toMatch(/at least 1d/);
    expect((await changeSetting(h.ctx, admin, 'checkpoint_interval', '15m')).value).toBe('15m');
    await changeSetting(h.ctx, admin, 'checkpoint_interval', null);
    await changeSetting(h.ctx, admin, 'auto_archive_after', null);
  });
});

describeEachDialect('settings that decide capture coverage (docs/design/capture.md)', (t) => {
  it('setting the Slack signing secret is logged as a coverage change when a roster human has a Slack id', async () => {
    const h = t();
    const { changeSetting } = await import('../../src/app/settings.js');
    const { systemCaller } = await import('../../src/app/caller.js');
    const { coverageLog } = await import('../../src/store/human-messages-repo.js');
    await h.human(uniqueKey('cov'), { slack: ['U0COVERAGE1'] });
    await changeSetting(h.ctx, systemCaller('cli'), 'slack_signing_secret', 'a'.repeat(32));
    const slack = (await coverageLog(h.store.kysely)).filter((e) => e.channel === 'slack');
    expect(slack.at(-1)).toMatchObject({ instrumented: true });
    await changeSetting(h.ctx, systemCaller('cli'), 'slack_workspace_url', 'https://acme.slack.com/');
    const { getSetting } = await import('../../src/store/settings-repo.js');
    expect(await getSetting(h.store.kysely, 'slack_workspace_url')).toBe('https://acme.slack.com');
  });
});
