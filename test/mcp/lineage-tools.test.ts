import { expect, it } from 'vitest';
import { describeEachDialect, ManualClock, uniqueKey } from '../helpers/harness.js';
import { eventsOf, followUp, liveSession, uncleRows } from '../helpers/lineage.js';
import { callTool, mcpClient } from '../helpers/mcp.js';

const clock = new ManualClock();

describeEachDialect(
  'MCP: read_inbox, message_parent (self_session); action_session and manage_enqueued_messages (sessions)',
  (t) => {
    it('the self_session surface carries read_inbox and message_parent, never remove_uncle or queue management', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const self = await mcpClient(h, '/mcp/self', s.token);
      const names = (await self.listTools()).tools.map((x) => x.name);
      expect(names).toEqual(expect.arrayContaining(['read_inbox', 'message_parent', 'get_session']));
      expect(names).not.toContain('action_session');
      expect(names).not.toContain('manage_enqueued_messages');
      const fleet = await mcpClient(h, '/mcp', h.fleetKey);
      const fleetNames = (await fleet.listTools()).tools.map((x) => x.name);
      expect(fleetNames).toEqual(expect.arrayContaining(['action_session', 'manage_enqueued_messages']));
      expect(fleetNames).not.toContain('read_inbox');
      await self.close();
      await fleet.close();
    });

    it('read_inbox acknowledges earlier items, then leases new ones; a retried call never loses or duplicates an item', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const self = await mcpClient(h, '/mcp/self', s.token);
      await followUp(h, h.fleetKey, s.id, { content: 'one' });
      await followUp(h, h.fleetKey, s.id, { content: 'two' });

      const first = await callTool(self, 'read_inbox', {});
      expect(first.isError).toBe(false);
      expect(first.data.items.map((i: any) => [i.content, i.redelivery])).toEqual([
        ['one', false],
        ['two', false],
      ]);
      expect(first.text).toContain('### Item');
      const [one, two] = first.data.items.map((i: any) => i.id);

      // the response to a call is lost; the agent retries the same call: nothing is handed out twice as new
      const retry = await callTool(self, 'read_inbox', {});
      expect(retry.data.items).toEqual([]);
      expect(retry.text).toContain('No new items.');

      await followUp(h, h.fleetKey, s.id, { content: 'three' });
      const next = await callTool(self, 'read_inbox', { ack: [one] });
      expect(next.data.ack).toEqual({ delivered: [one], already_delivered: [], rejected: [] });
      expect(next.data.items.map((i: any) => i.content)).toEqual(['three']);
      // a retried ack is harmless
      const again = await callTool(self, 'read_inbox', { ack: [one] });
      expect(again.data.ack).toEqual({ delivered: [], already_delivered: [one], rejected: [] });

      // `two` was never acknowledged: after its lease lapses it comes back, marked as handed out before
      clock.advance(60_000);
      const back = await callTool(self, 'read_inbox', {});
      const three = next.data.items[0].id;
      expect(back.data.items.map((i: any) => [i.id, i.redelivery])).toEqual([
        [two, true],
        [three, true],
      ]);
      expect(back.text).toContain('(handed out before; not new)');
      const states = await h.request('GET', `/api/v1/sessions/${s.id}/inbox?state=all`, { token: h.fleetKey });
      expect(states.body.items.find((i: any) => i.id === one).state).toBe('delivered');
      await self.close();
    });

    it('read_inbox: when_idle items only with idle; messages from other agents arrive framed as untrusted peers', async () => {
      const h = t();
      const parent = await liveSession(h, h.fleetKey);
      const child = await liveSession(h, parent.token);
      const parentSelf = await mcpClient(h, '/mcp/self', parent.token);
      const childSelf = await mcpClient(h, '/mcp/self', child.token);
      const sent = await callTool(childSelf, 'message_parent', { content: 'scope is wrong' });
      expect(sent.isError).toBe(false);
      expect(sent.data).toMatchObject({ parent_session_id: parent.id, inbox_item: { kind: 'parent_message' } });
      await h.request('POST', `/api/v1/sessions/${parent.id}/enqueued_messages`, { token: h.fleetKey, body: { content: 'later' } });
      const busy = await callTool(parentSelf, 'read_inbox', {});
      expect(busy.data.items.map((i: any) => i.kind)).toEqual(['parent_message']);
      expect(busy.data.items[0].frame.format).toBe('warrant-message');
      expect(busy.text).toContain('peer, untrusted, coordination only');
      const idle = await callTool(parentSelf, 'read_inbox', { idle: true, ack: [busy.data.items[0].id] });
      expect(idle.data.items.map((i: any) => i.content)).toEqual(['later']);
      // an orphan has no parent: the same token as REST
      const orphan = await liveSession(h, h.fleetKey);
      const orphanSelf = await mcpClient(h, '/mcp/self', orphan.token);
      const none = await callTool(orphanSelf, 'message_parent', { content: 'hello?' });
      expect(none.isError).toBe(true);
      expect(none.data.error).toBe('no-parent');
      for (const c of [parentSelf, childSelf, orphanSelf]) await c.close();
    });

    it('action_session follow_up: the session token is the acting session (mcp.follow_up); human tokens are delegated and never uncles', async () => {
      const h = t();
      const a = await liveSession(h, h.fleetKey);
      const b = await liveSession(h, h.fleetKey);
      const asA = await mcpClient(h, '/mcp', a.token);
      const r = await callTool(asA, 'action_session', { action: 'follow_up', session_id: b.id, content: 'from A over MCP' });
      expect(r.isError).toBe(false);
      expect(r.data.uncle_edge).toMatchObject({ outcome: 'written', source: 'mcp.follow_up', basis: 'authenticated' });
      expect(r.text).toContain('Uncle edge: written');
      const mismatch = await callTool(asA, 'action_session', { action: 'follow_up', session_id: b.id, content: 'x', acting_session_id: b.id });
      expect(mismatch.isError).toBe(true);
      expect(mismatch.data.error).toBe('acting-session-mismatch');
      const noContent = await callTool(asA, 'action_session', { action: 'follow_up', session_id: b.id });
      expect(noContent.data).toMatchObject({ error: 'invalid-request', field: 'content' });

      const human = await h.human(uniqueKey());
      const asHuman = await mcpClient(h, '/mcp', human.token);
      const byHuman = await callTool(asHuman, 'action_session', { action: 'follow_up', session_id: b.id, content: 'typed by a model with my token' });
      expect(byHuman.data.uncle_edge.outcome).toBe('no-acting-session');
      expect(byHuman.data.inbox_item.sender).toMatchObject({ kind: 'human', basis: 'delegated' });
      for (const c of [asA, asHuman]) await c.close();
    });

    it('action_session remove_uncle: refused to session tokens, done for fleet, with the REST tokens on misses', async () => {
      const h = t();
      const a = await liveSession(h, h.fleetKey);
      const b = await liveSession(h, h.fleetKey);
      await followUp(h, a.token, b.id);
      const asA = await mcpClient(h, '/mcp', a.token);
      const refused = await callTool(asA, 'action_session', { action: 'remove_uncle', session_id: b.id, uncle_session_id: a.id });
      expect(refused.isError).toBe(true);
      expect(refused.data.error).toBe('forbidden');
      const fleet = await mcpClient(h, '/mcp', h.fleetKey);
      const reversed = await callTool(fleet, 'action_session', { action: 'remove_uncle', session_id: a.id, uncle_session_id: b.id });
      expect(reversed.data.error).toBe('uncle-link-reversed');
      const removed = await callTool(fleet, 'action_session', { action: 'remove_uncle', session_id: b.id, uncle_session_id: a.id, acting_session_id: a.id });
      expect(removed.isError).toBe(false);
      expect(removed.data.removed).toMatchObject({ session_id: b.id, uncle_session_id: a.id, source: 'rest.follow_up' });
      expect(await uncleRows(h, [a.id, b.id])).toEqual([]);
      const [e] = await eventsOf(h, b.id, 'uncle_removed');
      expect(e.details).toMatchObject({ via: 'mcp', acting_session_id: a.id });
      const missing = await callTool(fleet, 'action_session', { action: 'remove_uncle', session_id: b.id, uncle_session_id: a.id });
      expect(missing.data.error).toBe('uncle-link-not-found');
      for (const c of [asA, fleet]) await c.close();
    });

    it('manage_enqueued_messages: list, create, send_now, interrupt (by id or new content), withdraw', async () => {
      const h = t();
      const a = await liveSession(h, h.fleetKey);
      const b = await liveSession(h, h.fleetKey);
      const fleet = await mcpClient(h, '/mcp', h.fleetKey);
      const call = (args: Record<string, unknown>) => callTool(fleet, 'manage_enqueued_messages', { session_id: b.id, acting_session_id: a.id, ...args });
      const created = await call({ action: 'create', content: 'queued' });
      expect(created.data).toMatchObject({
        inbox_item: { kind: 'enqueued', mode: 'when_idle' },
        uncle_edge: { outcome: 'written', source: 'mcp.enqueue', basis: 'declared' },
      });
      const mid = created.data.inbox_item.id;
      const second = (await call({ action: 'create', content: 'queued 2' })).data.inbox_item.id;
      expect((await call({ action: 'list' })).data.enqueued_messages.map((m: any) => m.id)).toEqual([mid, second]);
      expect((await call({ action: 'send_now', message_id: mid })).data).toMatchObject({
        changed: true,
        inbox_item: { mode: 'next_turn' },
        uncle_edge: { source: 'mcp.send_now' },
      });
      expect((await call({ action: 'interrupt', message_id: second })).data).toMatchObject({
        changed: true,
        inbox_item: { mode: 'interrupt' },
        uncle_edge: { source: 'mcp.interrupt' },
      });
      const fresh = await call({ action: 'interrupt', content: 'new and urgent' });
      expect(fresh.data).toMatchObject({ inbox_item: { mode: 'interrupt', content: 'new and urgent' }, uncle_edge: { source: 'mcp.interrupt' } });
      const both = await call({ action: 'interrupt', content: 'x', message_id: mid });
      expect(both.data.error).toBe('invalid-request');
      expect((await call({ action: 'withdraw', message_id: mid })).data).toMatchObject({ changed: true, inbox_item: { state: 'withdrawn' }, uncle_edge: null });
      expect((await call({ action: 'withdraw', message_id: mid })).data).toMatchObject({ error: 'enqueued-message-not-pending', state: 'withdrawn' });
      expect((await call({ action: 'send_now' })).data).toMatchObject({ error: 'invalid-request', field: 'message_id' });
      await fleet.close();
    });
  },
  { clock },
);
