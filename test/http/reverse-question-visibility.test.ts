import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { liveSession } from '../helpers/lineage.js';

/**
 * Multi-user mode: the reverse question hides what other reads hide (docs/concepts.md) — no
 * session of another owner, and no filter that matches through a session the reader may not see.
 */
describeEachDialect(
  'the reverse question in multi-user mode',
  (t) => {
    it('caused_by and events list only what the reader may see; a filter cannot match through a hidden session', async () => {
      const h = t();
      const aliceKey = uniqueKey('alice');
      const carolKey = uniqueKey('carol');
      const alice = await h.human(aliceKey);
      const carol = await h.human(carolKey);
      const admin = await h.human(uniqueKey('admin'), { admin: true });
      const router = await liveSession(h, alice.token, { title: 'alice router' });
      const worker = (await h.create(router.token, { title: 'alice worker' })).session.id as number;
      const carols = await liveSession(h, carol.token, { title: 'carol secret' });
      // a dispatcher puts work for alice's router under carol's session: carol's, caused by alice
      const dispatched = (await h.create(h.fleetKey, { title: 'dispatched', parent_session_id: carols.id, acting_session_id: router.id })).session;
      expect(dispatched.owner).toBe(carolKey);
      // and the fleet, declaring carol's session, enqueues onto alice's router and makes her a session
      const enq = await h.request('POST', `/api/v1/sessions/${router.id}/enqueued_messages`, {
        token: h.fleetKey,
        body: { content: 'from carol', acting_session_id: carols.id },
      });
      expect(enq.status, enq.text).toBe(201);
      const madeForAlice = (await h.create(h.fleetKey, { title: 'made for alice', owner: aliceKey, acting_session_id: carols.id })).session.id as number;

      const ids = async (token: string, query: string) =>
        (await h.request('GET', `/api/v1/sessions?${query}&limit=200`, { token })).body.sessions
          .map((s: { id: number }) => s.id)
          .sort((a: number, b: number) => a - b);
      expect(await ids(admin.token, `caused_by=${aliceKey}`)).toEqual([router.id, worker, dispatched.id].sort((a, b) => a - b));
      expect(await ids(alice.token, `caused_by=${aliceKey}`)).toEqual([router.id, worker].sort((a, b) => a - b));
      // carol caused alice's "made for alice" through carol's session, which alice may not see
      expect(await ids(admin.token, `caused_by=${carolKey}`)).toContain(madeForAlice);
      expect(await ids(alice.token, `caused_by=${carolKey}`)).toEqual([]);
      expect(await ids(alice.token, `caused_by=session:${carols.id}`)).toEqual([]);

      const events = async (token: string, query: string) =>
        (await h.request('GET', `/api/v1/events?${query}&limit=200`, { token })).body.events as {
          session_id: number;
          actor: { kind: string; ref: string | null };
        }[];
      // carol's session acted on alice's router: alice sees the act, its actor unnamed — but cannot find it by that session or by carol
      const onRouter = (await events(alice.token, `actor=fleet`)).length + (await events(alice.token, `cause=${aliceKey}`)).length;
      expect(onRouter).toBeGreaterThan(0);
      expect(await events(alice.token, `actor=session:${carols.id}`)).toEqual([]);
      expect(await events(alice.token, `cause=${carolKey}`)).toEqual([]);
      expect((await events(admin.token, `actor=session:${carols.id}`)).map((e) => e.session_id)).toContain(router.id);
      // and no event of carol's sessions reaches alice at all
      for (const e of await events(alice.token, `cause=${aliceKey}`)) expect([router.id, worker]).toContain(e.session_id);
      expect((await events(admin.token, `cause=${aliceKey}`)).map((e) => e.session_id)).toContain(dispatched.id);
    });
  },
  { mode: 'multi-user' },
);
