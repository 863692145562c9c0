import { expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { housekeepingTasks } from '../../src/app/housekeeping.js';
import { autoArchiveIdleSessions, deleteLongArchivedSessions } from '../../src/app/retention.js';
import { changeSetting } from '../../src/app/settings.js';
import { describeEachDialect, ManualClock, type Harness } from '../helpers/harness.js';
import { eventsOf, expectAttribution, onlyEvent, system } from '../helpers/events.js';

/**
 * docs/design/attribution.md, "Housekeeping is `system`": the automatic archive of idle sessions and the
 * retention jobs act as `system`, both actor and cause. Both jobs are off until their setting is set.
 */
const clock = new ManualClock();
const HOUR = 3_600_000;

async function runHousekeeping(h: Harness): Promise<void> {
  for (const task of housekeepingTasks) await task(h.ctx);
}

async function stopped(h: Harness, body: Record<string, unknown>): Promise<any> {
  const s = (await h.create(h.fleetKey, body)).session;
  await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: h.fleetKey, body: {} });
  return s;
}

async function statusOf(h: Harness, id: number): Promise<string | number> {
  const res = await h.request('GET', `/api/v1/sessions/${id}`, { token: h.fleetKey });
  return res.status === 200 ? res.body.session.status : res.status;
}

describeEachDialect(
  'housekeeping acts',
  (t) => {
    it('off by default: nothing is archived or deleted however old', async () => {
      const h = t();
      const s = await stopped(h, { title: 'old' });
      clock.advance(400 * 24 * HOUR);
      expect(await autoArchiveIdleSessions(h.ctx)).toEqual([]);
      expect(await deleteLongArchivedSessions(h.ctx)).toEqual([]);
      expect(await statusOf(h, s.id)).toBe('stopped');
    });

    it('automatic archive: quiet stopped/failed subtrees, as system for system; a fresh child or an active one keeps its parent open', async () => {
      const h = t();
      await changeSetting(h.ctx, systemCaller('cli'), 'auto_archive_after', '1h');
      const lone = await stopped(h, { title: 'lone' });
      const parent = await stopped(h, { title: 'parent' });
      const child = await stopped(h, { title: 'child', parent_session_id: parent.id });
      const busyParent = await stopped(h, { title: 'busy parent' });
      const runner = await h.create(h.fleetKey, { title: 'running child', parent_session_id: busyParent.id, attach: true });
      const freshParent = await stopped(h, { title: 'fresh parent' });
      clock.advance(2 * HOUR);
      const fresh = await stopped(h, { title: 'fresh child', parent_session_id: freshParent.id });

      await runHousekeeping(h);
      expect(await statusOf(h, lone.id)).toBe('archived');
      expect(await statusOf(h, parent.id)).toBe('archived');
      expect(await statusOf(h, child.id)).toBe('archived');
      for (const id of [busyParent.id, freshParent.id, fresh.id]) expect(await statusOf(h, id)).toBe('stopped');
      expect(await statusOf(h, runner.session.id)).toBe('running');

      for (const id of [lone.id, parent.id, child.id]) {
        const e = await onlyEvent(h, id, 'archived');
        expectAttribution(e, { actor: system, actorBasis: 'authenticated', cause: system, causeBasis: 'authenticated', credentialId: null });
      }
      expect(await eventsOf(h, busyParent.id, ['archived'])).toEqual([]);
      // a second run finds nothing more to do
      expect(await autoArchiveIdleSessions(h.ctx)).not.toContain(fresh.id);
      await changeSetting(h.ctx, systemCaller('cli'), 'auto_archive_after', null);
    });

    it('retention: sessions archived longer than the setting are deleted, each with a deletion record via housekeeping, system for system', async () => {
      const h = t();
      const s = await stopped(h, { title: 'to expire' });
      await h.request('POST', `/api/v1/sessions/${s.id}/archive`, { token: h.fleetKey, body: {} });
      const kept = await stopped(h, { title: 'archived later' });
      await changeSetting(h.ctx, systemCaller('cli'), 'delete_archived_after', '1d');
      clock.advance(25 * HOUR);
      await h.request('POST', `/api/v1/sessions/${kept.id}/archive`, { token: h.fleetKey, body: {} });
      await runHousekeeping(h);
      expect(await statusOf(h, s.id)).toBe(404);
      expect(await statusOf(h, kept.id)).toBe('archived');
      const res = await h.request('GET', `/api/v1/session_deletions?session_uid=${s.uid}`, { token: h.fleetKey });
      expect(res.body.deletions).toHaveLength(1);
      expect(res.body.deletions[0]).toMatchObject({
        last_title: 'to expire',
        via: 'housekeeping',
        actor: { kind: 'system', basis: 'authenticated' },
        cause: { kind: 'system', basis: 'authenticated' },
        credential_id: null,
      });
      const bySystem = await h.request('GET', `/api/v1/session_deletions?actor=system`, { token: h.fleetKey });
      expect(bySystem.body.deletions.map((d: { session_uid: string }) => d.session_uid)).toContain(s.uid);
      await changeSetting(h.ctx, systemCaller('cli'), 'delete_archived_after', null);
    });
  },
  { clock },
);
