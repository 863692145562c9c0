import { expect } from 'vitest';
import type { Harness } from './harness.js';
import { uniqueKey } from './harness.js';
import { liveSession, type Live } from './lineage.js';

/**
 * The reverse question's fixture (docs/attribution.md "What a person caused"): alice starts a
 * router that spawns workers; they queue work on carol's tree — an enqueue onto carol's
 * session, and a dispatcher (the fleet key) creating a session under it declaring a worker as
 * the acting session. Bob's decoy tree queues work onto alice's router, and carol spawns a
 * session of her own under alice's router: neither is alice's.
 */
export interface CausationWorld {
  alice: { key: string; token: string };
  bob: { key: string; token: string };
  carol: { key: string; token: string };
  /** exactly the sessions alice caused */
  alices: number[];
  /** every other session the fixture made */
  others: number[];
  router: Live;
  /** created by the fleet declaring a dispatched session: a root of its own */
  dispatchedChild: number;
  carolsRoot: Live;
  /** the enqueue a worker put on carol's root: an act whose cause is alice */
  queuedOnCarol: number;
}

export async function causationWorld(h: Harness): Promise<CausationWorld> {
  const mk = async (prefix: string) => {
    const key = uniqueKey(prefix);
    return { key, token: (await h.human(key)).token };
  };
  const alice = await mk('alice');
  const bob = await mk('bob');
  const carol = await mk('carol');

  const router = await liveSession(h, alice.token, { title: 'alice router' });
  const w1 = await liveSession(h, router.token, { title: 'worker 1' });
  const w2 = await liveSession(h, router.token, { title: 'worker 2' });
  const w1a = (await h.create(w1.token, { title: 'worker 1a' })).session.id as number;

  const carolsRoot = await liveSession(h, carol.token, { title: 'carol root' });
  const carolsChild = (await h.create(carolsRoot.token, { title: 'carol child' })).session.id as number;
  // the workers queue work on carol's tree
  const enq = await h.request('POST', `/api/v1/sessions/${carolsRoot.id}/enqueued_messages`, { token: w1.token, body: { content: 'please index the docs' } });
  expect(enq.status, enq.text).toBe(201);
  const dispatched = await h.create(h.fleetKey, { title: 'dispatched for worker 2', parent_session_id: carolsRoot.id, acting_session_id: w2.id });
  expect(dispatched.session.parent_session_id).toBe(carolsRoot.id);
  const dispatchedChild = (await h.create(h.fleetKey, { title: 'dispatched, again', acting_session_id: dispatched.session.id })).session.id as number;

  // the decoys
  const decoy = await liveSession(h, bob.token, { title: 'bob decoy' });
  const decoyWorker = await liveSession(h, decoy.token, { title: 'bob worker' });
  const decoyEnq = await h.request('POST', `/api/v1/sessions/${router.id}/enqueued_messages`, { token: decoyWorker.token, body: { content: 'from bob' } });
  expect(decoyEnq.status, decoyEnq.text).toBe(201);
  const carolUnderRouter = (await h.create(carol.token, { title: 'carol under alice', parent_session_id: router.id })).session.id as number;
  const bare = (await h.create(h.fleetKey, { title: 'bare fleet' })).session.id as number;

  return {
    alice,
    bob,
    carol,
    alices: [router.id, w1.id, w2.id, w1a, dispatched.session.id, dispatchedChild].sort((a, b) => a - b),
    others: [carolsRoot.id, carolsChild, decoy.id, decoyWorker.id, carolUnderRouter, bare].sort((a, b) => a - b),
    router,
    dispatchedChild,
    carolsRoot,
    queuedOnCarol: enq.body.inbox_item.id as number,
  };
}
