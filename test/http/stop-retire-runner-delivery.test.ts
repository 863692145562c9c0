import { expect, it } from 'vitest';
import { describeEachDialect, type Harness } from '../helpers/harness.js';
import { eventsOf, expectAttribution, fleet, system } from '../helpers/events.js';
import { followUp, liveSession, type Live } from '../helpers/lineage.js';
import { callTool, mcpClient } from '../helpers/mcp.js';

/** What `warrant run` polls for a stop: the runner kills its child when this lists anything. */
const pendingStops = async (h: Harness, id: number, token: string) =>
  (await h.request('GET', `/api/v1/sessions/${id}/inbox?kind=control&state=pending,leased`, { token })).body.items as any[];
const runtime = (h: Harness, s: Live, body: Record<string, unknown>) => h.request('POST', `/api/v1/sessions/${s.id}/runtime`, { token: s.token, body });
const attach = async (h: Harness, id: number, body?: Record<string, unknown>): Promise<Live> => {
  const r = await h.request('POST', `/api/v1/sessions/${id}/attach`, { token: h.fleetKey, ...(body ? { body } : {}) });
  if (r.status !== 200) throw new Error(`attach: ${r.status} ${r.text}`);
  return { id, uid: r.body.session.uid, token: r.body.session_token };
};
const controlRow = async (h: Harness, sessionId: number) =>
  h.store.kysely.selectFrom('inbox_items').selectAll().where('session_id', '=', sessionId).where('kind', '=', 'control').orderBy('id').execute();

describeEachDialect('a stop ends with the runtime it was for', (t) => {
  it('stop → exit → resume → attach: the next runtime never sees the old stop (the bug: it killed the resumed agent)', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey);
    expect((await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: h.fleetKey, body: {} })).status).toBe(200);
    expect((await pendingStops(h, s.id, s.token)).length).toBe(1); // the runner sees it and kills its child
    expect((await runtime(h, s, { state: 'exited', code: 143 })).body.session.status).toBe('stopped');
    const [row] = await controlRow(h, s.id);
    expect(row).toMatchObject({ state: 'retired' });
    expect(row!.retired_at).toEqual(expect.any(String));
    const retired = (await eventsOf(h, s.id, ['inbox_item_retired']))[0]!;
    expect(retired.details).toMatchObject({ inbox_item_id: row!.id, kind: 'control', action: 'stop', reason: 'runtime-exited', activation: 1 });
    expectAttribution(retired, { actor: system, cause: fleet });
    expect((await h.request('POST', `/api/v1/sessions/${s.id}/resume`, { token: h.fleetKey, body: {} })).status).toBe(200);
    const next = await attach(h, s.id);
    expect(await pendingStops(h, s.id, next.token)).toEqual([]);
    // and the list says what happened to it
    const all = (await h.request('GET', `/api/v1/sessions/${s.id}/inbox?state=retired`, { token: h.fleetKey })).body.items;
    expect(all.map((i: any) => [i.id, i.state])).toEqual([[row!.id, 'retired']]);
    // a new stop for the new runtime works as before
    await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: h.fleetKey, body: {} });
    expect((await pendingStops(h, s.id, next.token)).length).toBe(1);
  });

  it('an error report retires it too; an acknowledged stop stays delivered; other items are untouched', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey);
    await followUp(h, h.fleetKey, s.id, { content: 'still for the session' });
    await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: h.fleetKey, body: {} });
    expect((await runtime(h, s, { state: 'error', reason: 'crashed' })).body.session.status).toBe('failed');
    expect((await controlRow(h, s.id)).map((r) => r.state)).toEqual(['retired']);
    expect((await eventsOf(h, s.id, ['inbox_item_retired']))[0]!.details.reason).toBe('runtime-error');
    const open = (await h.request('GET', `/api/v1/sessions/${s.id}/inbox`, { token: h.fleetKey })).body.items;
    expect(open.map((i: any) => [i.kind, i.state])).toEqual([['follow_up', 'pending']]);

    const k = await liveSession(h, h.fleetKey);
    await h.request('POST', `/api/v1/sessions/${k.id}/stop`, { token: h.fleetKey, body: {} });
    const leased = (await h.request('POST', `/api/v1/sessions/${k.id}/inbox/lease`, { token: k.token, body: {} })).body.items;
    await h.request('POST', `/api/v1/sessions/${k.id}/inbox/ack`, { token: k.token, body: { ids: leased.map((i: any) => i.id) } });
    await h.request('POST', `/api/v1/sessions/${k.id}/runtime`, { token: k.token, body: { state: 'exited', code: 0 } });
    expect((await controlRow(h, k.id)).map((r) => r.state)).toEqual(['delivered']);
    expect(await eventsOf(h, k.id, ['inbox_item_retired'])).toEqual([]);
  });

  it('a stop left pending by a runtime that never reported its end (or by an older store) is retired when the next runtime attaches', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey);
    await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: h.fleetKey, body: {} });
    await runtime(h, s, { state: 'exited', code: 0 });
    // what a store written before this release holds: the stop still pending after the exit
    await h.store.kysely
      .updateTable('inbox_items')
      .set({ state: 'pending', retired_at: null })
      .where('session_id', '=', s.id)
      .where('kind', '=', 'control')
      .execute();
    const next = await attach(h, s.id);
    expect(await pendingStops(h, s.id, next.token)).toEqual([]);
    const reasons = (await eventsOf(h, s.id, ['inbox_item_retired'])).map((e) => e.details.reason);
    expect(reasons).toEqual(['runtime-exited', 'attached']);
  });
});

describeEachDialect('runner-owned delivery: MCP read_inbox lists without leasing', (t) => {
  it('attach with delivery: runner → read_inbox lists and leases nothing; the runner still leases; a plain attach restores leasing', async () => {
    const h = t();
    const created = await h.create(h.fleetKey, { title: 'runner-fed' });
    const s = await attach(h, created.session.id, { delivery: 'runner' });
    expect((await eventsOf(h, s.id, ['attached']))[0]!.details).toMatchObject({ activation: 1, delivery: 'runner' });
    const item = (await followUp(h, h.fleetKey, s.id, { content: 'for the runner to type' })).body.inbox_item.id;
    const mcp = await mcpClient(h, '/mcp/self', s.token);
    try {
      const r = await callTool(mcp, 'read_inbox', { ack: [item] });
      expect(r.isError).toBe(false);
      expect(r.data.delivery).toBe('runner');
      expect(r.data.items.map((i: any) => [i.id, i.state])).toEqual([[item, 'pending']]);
      expect(r.data.lease_expires_at).toBeNull();
      expect(r.data.ack).toEqual({ delivered: [], already_delivered: [], rejected: [{ id: item, reason: 'runner-delivery' }] });
      expect(r.text).toContain('Your runner delivers your inbox into this conversation');
      const row = await h.store.kysely.selectFrom('inbox_items').select(['state', 'lease_count']).where('id', '=', item).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ state: 'pending' });
      expect(Number(row.lease_count)).toBe(0);
    } finally {
      await mcp.close();
    }
    // the runner leases over REST as before
    const leased = await h.request('POST', `/api/v1/sessions/${s.id}/inbox/lease`, { token: s.token, body: {} });
    expect(leased.body.items.map((i: any) => i.id)).toEqual([item]);
    await h.request('POST', `/api/v1/sessions/${s.id}/runtime`, { token: s.token, body: { state: 'exited', code: 0 } });

    // the next activation attached without it: MCP leases again
    const plain = await attach(h, s.id);
    const second = (await followUp(h, h.fleetKey, s.id, { content: 'for the model to read' })).body.inbox_item.id;
    const mcp2 = await mcpClient(h, '/mcp/self', plain.token);
    try {
      const r = await callTool(mcp2, 'read_inbox', {});
      expect(r.data.delivery).toBe('mcp');
      expect(r.data.items.map((i: any) => i.id)).toContain(second);
      expect(r.data.lease_expires_at).toEqual(expect.any(String));
    } finally {
      await mcp2.close();
    }
  });

  it('create with attach takes delivery: runner; without attach, or with another value, it is refused', async () => {
    const h = t();
    const made = await h.create(h.fleetKey, { title: 'born fed', attach: true, delivery: 'runner' });
    const mcp = await mcpClient(h, '/mcp/self', made.session_token);
    try {
      expect((await callTool(mcp, 'read_inbox', {})).data.delivery).toBe('runner');
    } finally {
      await mcp.close();
    }
    const noAttach = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'x', delivery: 'runner' } });
    expect(noAttach.status).toBe(400);
    expect(noAttach.body.error).toBe('invalid-request');
    const bad = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'x', attach: true, delivery: 'model' } });
    expect(bad.status).toBe(400);
    const pending = await h.create(h.fleetKey, { title: 'p' });
    const badAttach = await h.request('POST', `/api/v1/sessions/${pending.session.id}/attach`, { token: h.fleetKey, body: { delivery: 'pty' } });
    expect(badAttach.status).toBe(400);
    // nothing was attached by the refused call
    expect((await h.request('GET', `/api/v1/sessions/${pending.session.id}`, { token: h.fleetKey })).body.session.status).toBe('pending');
  });
});
