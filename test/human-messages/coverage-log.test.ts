import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { coverageLog } from '../../src/store/human-messages-repo.js';
import { currentChannelStates, syncCoverage } from '../../src/app/human-messages/coverage-state.js';
import { inWriteTx } from '../../src/app/write-scope.js';
import { setSetting } from '../../src/store/settings-repo.js';
import { adoptAdminUser } from '../../src/app/roster.js';
import { systemCaller } from '../../src/app/caller.js';
import { auditPage } from '../../src/store/audit-repo.js';

describeEachDialect('the coverage log (docs/design/capture.md)', (t) => {
  it('logs the first observation of every channel and every later change, and is append-only', async () => {
    const h = t();
    const first = await coverageLog(h.store.kysely);
    expect(new Set(first.map((e) => e.channel))).toEqual(new Set(['web_ui', 'slack', 'cli']));
    await h.human(uniqueKey('tok')); // issues a human token: cli becomes instrumented
    const states = await currentChannelStates(h.store.kysely, h.ctx);
    expect(states.cli.instrumented).toBe(true);
    const log = await coverageLog(h.store.kysely);
    expect(log.filter((e) => e.channel === 'cli').at(-1)).toMatchObject({ instrumented: true });
    // Slack needs both a signing secret and a mapped user
    await h.human(uniqueKey('slacker'), { slack: [`U${Date.now() % 100000000}`] });
    expect((await currentChannelStates(h.store.kysely, h.ctx)).slack).toMatchObject({ instrumented: false, reason: expect.stringContaining('signing secret') });
    await inWriteTx(h.ctx, async (w) => {
      await setSetting(w.tx, 'slack_signing_secret', 'shh', w.now);
      await syncCoverage(w);
    });
    expect((await coverageLog(h.store.kysely)).filter((e) => e.channel === 'slack').at(-1)).toMatchObject({ instrumented: true });
    await expect(h.store.kysely.updateTable('coverage_log').set({ instrumented: 0 }).execute()).rejects.toThrow(/immutable/);
    await expect(h.store.kysely.deleteFrom('coverage_log').execute()).rejects.toThrow(/immutable/);
    // no change, no row
    const n = (await coverageLog(h.store.kysely)).length;
    await inWriteTx(h.ctx, async (w) => syncCoverage(w));
    expect((await coverageLog(h.store.kysely)).length).toBe(n);
  });

  it('init --admin bob --replace-admin: one setting_changed entry and a web_ui coverage row crediting bob, not a stale one crediting alice', async () => {
    const h = t();
    const cli = systemCaller('cli');
    const alice = uniqueKey('alice');
    const bob = uniqueKey('bob');
    expect((await adoptAdminUser(h.ctx, cli, { key: alice, explicit: true, replace: false })).outcome).not.toBe('replaced');
    const webRows = () => h.store.kysely.selectFrom('coverage_log').select(['instrumented', 'reason']).where('channel', '=', 'web_ui').orderBy('id').execute();
    expect((await webRows()).at(-1)).toMatchObject({ instrumented: 1, reason: expect.stringContaining(`admin key ${alice} `) });
    const before = (await auditPage(h.store.kysely, 0, 100_000)).length;
    const replaced = await adoptAdminUser(h.ctx, cli, { key: bob, explicit: true, replace: true });
    expect(replaced).toMatchObject({ outcome: 'replaced', previous: alice });
    const rows = await webRows();
    expect(rows.at(-1)).toMatchObject({ instrumented: 1, reason: expect.stringContaining(`admin key ${bob} `) });
    const entries = (await auditPage(h.store.kysely, 0, 100_000)).slice(before).map((l) => JSON.parse(l.entry));
    expect(entries.filter((e) => e.kind === 'setting_changed')).toEqual([expect.objectContaining({ key: 'admin_user', action: 'set', value: bob })]);
    const coverage = entries.filter((e) => e.kind === 'coverage_changed');
    expect(coverage).toEqual([expect.objectContaining({ channel: 'web_ui', instrumented: true, reason: expect.stringContaining(bob) })]);
    // the same admin again: no change, no row
    const n = rows.length;
    await inWriteTx(h.ctx, async (w) => syncCoverage(w));
    expect((await webRows()).length).toBe(n);
  });
});
