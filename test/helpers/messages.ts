import { expect } from 'vitest';
import type { Harness, TestResponse } from './harness.js';
import { liveSession, type Live } from './lineage.js';

/** Helpers for agent-message tests (docs/design/messages.md). */
export async function send(h: Harness, token: string, body: Record<string, unknown>): Promise<TestResponse> {
  return h.request('POST', '/api/v1/messages', { token, body });
}

/** Sends and expects acceptance; returns the receipt. */
export async function sent(h: Harness, token: string, body: Record<string, unknown>): Promise<any> {
  const r = await send(h, token, body);
  if (r.status !== 201) throw new Error(`send failed: ${r.status} ${r.text}`);
  return r.body.message;
}

export async function status(h: Harness, token: string, id: string): Promise<TestResponse> {
  return h.request('GET', `/api/v1/messages/${id}`, { token });
}

/** The target's runtime takes everything (lease) and acknowledges it; returns the leased items. */
export async function leaseAndAck(h: Harness, target: Live): Promise<any[]> {
  const leased = await h.request('POST', `/api/v1/sessions/${target.id}/inbox/lease`, { token: target.token });
  if (leased.status !== 200) throw new Error(`lease failed: ${leased.status} ${leased.text}`);
  const ids = leased.body.items.map((i: any) => i.id);
  if (ids.length > 0) {
    const acked = await h.request('POST', `/api/v1/sessions/${target.id}/inbox/ack`, { token: target.token, body: { ids } });
    if (acked.status !== 200) throw new Error(`ack failed: ${acked.status} ${acked.text}`);
  }
  return leased.body.items;
}

/** A delivered message from `a` to `b` (sent, leased and acknowledged). */
export async function delivered(h: Harness, a: Live, b: Live, body: Record<string, unknown> = {}): Promise<any> {
  const m = await sent(h, a.token, { to: b.id, payload: 'please check the build', ...body });
  await leaseAndAck(h, b);
  return m;
}

export async function reportConversation(
  h: Harness,
  token: string,
  sessionId: number,
  conversationId: string,
  extra: Record<string, unknown> = {},
): Promise<TestResponse> {
  return h.request('POST', `/api/v1/sessions/${sessionId}/conversation`, {
    token,
    body: { provider: 'claude-code', conversation_id: conversationId, ...extra },
  });
}

/** Two live sessions. */
export async function pair(h: Harness, body: Record<string, unknown> = {}): Promise<[Live, Live]> {
  return [await liveSession(h, h.fleetKey, { title: 'sender', ...body }), await liveSession(h, h.fleetKey, { title: 'receiver', ...body })];
}

/**
 * Row counts of everything a send could write. Tests in a suite share a database but run one
 * at a time, so an unchanged snapshot around one call means that call wrote nothing.
 */
export async function storeSnapshot(h: Harness): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['agent_messages', 'message_history', 'inbox_items', 'session_events', 'audit_log', 'live_events', 'session_conversations'] as const) {
    const row = await h.store.kysely
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  const held = await h.store.kysely.selectFrom('counters').select('value').where('name', '=', 'agent_messages_held').executeTakeFirstOrThrow();
  out.held = Number(held.value);
  return out;
}

/** Asserts a refusal: status, token, the action docs/design/messages.md's table names, and (optionally) previous_id. */
export function expectRefusal(r: TestResponse, status: number, token: string, action: string, previousId?: string): void {
  expect({ status: r.status, error: r.body?.error, action: r.body?.action }, r.text).toEqual({ status, error: token, action });
  expect(typeof r.body.message).toBe('string');
  if (previousId !== undefined) expect(r.body.previous_id).toBe(previousId);
}

export async function refusedWithoutWrites(
  h: Harness,
  call: () => Promise<TestResponse>,
  status: number,
  token: string,
  action: string,
  previousId?: string,
): Promise<TestResponse> {
  const before = await storeSnapshot(h);
  const r = await call();
  expectRefusal(r, status, token, action, previousId);
  expect(await storeSnapshot(h), `${token}: nothing was written`).toEqual(before);
  return r;
}
