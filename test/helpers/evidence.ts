import { expect } from 'vitest';
import { changeSetting } from '../../src/app/settings.js';
import { writeCheckpoint } from '../../src/app/checkpoints.js';
import { systemCaller } from '../../src/app/caller.js';
import { uniqueKey, type Harness } from './harness.js';
import { recordUncleEdge } from '../../src/app/lineage/uncle-edges.js';
import { liveSession } from './lineage.js';
import { delivered, reportConversation } from './messages.js';

/**
 * A store holding rows of every evidence table, made through the API: sessions with events, a
 * deleted session (its deletion record), an uncle edge, an agent message settled into history,
 * a reported conversation, a human's enqueued message and its withdrawal, credentials, coverage.
 */
export async function storeWithEvidence(h: Harness): Promise<{ keep: number; doomed: number; uncle: { junior: number; uncle: number }; humanToken: string }> {
  const { token } = await h.human(uniqueKey('ev'));
  const root = (await h.create(token, { title: 'root', prompt: 'please do the thing' })).session;
  const keep = (await h.create(token, { title: 'kept', parent_session_id: root.id, prompt: 'and keep this' })).session;
  const doomed = (await h.create(token, { title: 'doomed', parent_session_id: root.id, prompt: 'this one goes' })).session;
  expect((await h.request('DELETE', `/api/v1/sessions/${doomed.id}`, { token })).status).toBe(200);
  const a = await liveSession(h, h.fleetKey, { title: 'a' });
  const b = await liveSession(h, h.fleetKey, { title: 'b' });
  // through the one writer, so the edge is on both timelines (declared: the acting session's claim)
  const edge = await recordUncleEdge(h.ctx, {
    actingSessionId: a.id,
    targetSessionId: b.id,
    basis: 'declared',
    source: 'rest.follow_up',
    attribution: { actorId: null, actorBasis: null, causeActorId: null, causeBasis: null, credentialId: null },
  });
  expect(edge.outcome).toBe('written');
  await delivered(h, a, b);
  expect((await reportConversation(h, a.token, a.id, 'conv-evidence')).status).toBeLessThan(300);
  const queued = await h.request('POST', `/api/v1/sessions/${keep.id}/enqueued_messages`, { token, body: { content: 'when you are free' } });
  expect(queued.status).toBe(201);
  expect((await h.request('DELETE', `/api/v1/sessions/${keep.id}/enqueued_messages/${queued.body.inbox_item.id}`, { token })).status).toBe(200);
  await changeSetting(h.ctx, systemCaller('cli'), 'checkpoint_key', 'generate:evidence-test');
  expect((await writeCheckpoint(h.ctx)).written).toBe(true);
  return { keep: keep.id, doomed: doomed.id, uncle: { junior: b.id, uncle: a.id }, humanToken: token };
}
