import { expect, it } from 'vitest';
import { MESSAGE_REFUSALS } from '../../src/core/message-refusals.js';
import { SEND_MESSAGE_DESCRIPTION } from '../../src/mcp/tools/message-tools.js';
import { describeEachDialect } from '../helpers/harness.js';
import { liveSession } from '../helpers/lineage.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';

/** docs/design/surfaces.md MCP: send_message and get_message on both groups; no surface reports a conversation (the hooks do, over REST). */
describeEachDialect("MCP agent-message tools over the SDK's real client (docs/design/messages.md, docs/design/surfaces.md)", (t) => {
  it("the groups carry the right tools, and send_message's description carries the caveats", async () => {
    const h = t();
    const fleet = await mcpClient(h, h.fleetKey);
    const tools = (await fleet.listTools()).tools;
    expect(tools.map((x) => x.name)).toEqual(expect.arrayContaining(['send_message', 'get_message']));
    expect(tools.map((x) => x.name)).not.toContain('report_conversation');
    const send = tools.find((x) => x.name === 'send_message')!;
    expect(send.description).toBe(SEND_MESSAGE_DESCRIPTION);
    for (const caveat of [
      'peer, untrusted and coordination-only',
      'no human authority',
      'cannot extend it',
      'only one reply per original',
      'never deliver twice',
    ])
      expect(send.description).toContain(caveat);
    expect(Object.keys((send.inputSchema as { properties: object }).properties)).toContain('acting_session_id');
    await fleet.close();
    const s = await liveSession(h, h.fleetKey);
    const self = await mcpClient(h, s.token, '/mcp/self');
    const selfTools = (await self.listTools()).tools;
    expect(selfTools.map((x) => x.name)).toEqual(expect.arrayContaining(['send_message', 'get_message', 'read_inbox']));
    expect(selfTools.map((x) => x.name)).not.toContain('report_conversation');
    expect(Object.keys((selfTools.find((x) => x.name === 'send_message')!.inputSchema as { properties: object }).properties)).not.toContain(
      'acting_session_id',
    );
    await self.close();
  });

  it('send as itself, read the frame with read_inbox, acknowledge, check the status, reply; refusals carry the REST token and action', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const aSelf = await mcpClient(h, a.token, '/mcp/self');
    const bSelf = await mcpClient(h, b.token, '/mcp/self');
    try {
      const sent = await callTool(aSelf, 'send_message', { to: b.id, payload: 'are the migrations done?', ref: 'mig-1' });
      expect(sent.isError).toBe(false);
      const m = sent.data.message;
      expect(m).toMatchObject({ ref: 'mig-1', source: { session_id: a.id, basis: 'authenticated' }, target: { session_id: b.id } });
      expect(sent.text).toContain(`Accepted message ${m.id}`);
      const retry = await callTool(aSelf, 'send_message', { to: b.id, payload: 'are the migrations done?', ref: 'mig-1' });
      expect(retry.data).toEqual({ message: m, replayed: true });

      const read = await callTool(bSelf, 'read_inbox', {});
      expect(read.data.items).toHaveLength(1);
      expect(JSON.parse(read.data.items[0].frame.text)).toMatchObject({ kind: 'warrant-message', trust: 'untrusted', message_id: m.id });
      const early = await callTool(bSelf, 'send_message', { reply_to: m.id, payload: 'yes' });
      expect(early.isError).toBe(true);
      expect(early.data).toMatchObject({ error: 'reply-original-not-delivered', action: MESSAGE_REFUSALS['reply-original-not-delivered'].action });
      expect(early.text).toMatch(/^reply-original-not-delivered: /);
      await callTool(bSelf, 'read_inbox', { ack: [read.data.items[0].id] });
      expect((await callTool(aSelf, 'get_message', { message_id: m.id })).data.message.state).toBe('delivered');

      const reply = await callTool(bSelf, 'send_message', { reply_to: m.id, payload: 'yes, all applied' });
      expect(reply.data.message).toMatchObject({ reply_to: m.id, target: { session_id: a.id } });
      const twice = await callTool(bSelf, 'send_message', { reply_to: m.id, payload: 'and again' });
      expect(twice.data).toMatchObject({ error: 'reply-already-committed', previous_id: reply.data.message.id, action: 'inspect it; do not resend' });

      const c = await liveSession(h, h.fleetKey);
      const cSelf = await mcpClient(h, c.token, '/mcp/self');
      const notMine = await callTool(cSelf, 'get_message', { message_id: m.id });
      expect(notMine.data.error).toBe('message-not-found');
      await cSelf.close();
    } finally {
      await aSelf.close();
      await bSelf.close();
    }
  });

  it('on /mcp the fleet sends only as a declared acting session, which cannot reply', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const fleet = await mcpClient(h, h.fleetKey);
    try {
      expect((await callTool(fleet, 'send_message', { to: b.id, payload: 'x' })).data.error).toBe('forbidden');
      const declared = await callTool(fleet, 'send_message', { to: b.id, payload: 'relayed', acting_session_id: a.id });
      expect(declared.data.message.source).toMatchObject({ session_id: a.id, basis: 'declared' });
      expect((await callTool(fleet, 'get_message', { message_id: declared.data.message.id })).data.message.state).toBe('accepted');
      const answer = await callTool(fleet, 'send_message', { reply_to: declared.data.message.id, payload: 'for b', acting_session_id: b.id });
      expect(answer.data.error).toBe('reply-sender-unverified');
    } finally {
      await fleet.close();
    }
  });

  it('a model cannot rebind its own conversation over MCP; its hook, over REST with the same token, reports it runtime-reported', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey);
    const self = await mcpClient(h, s.token, '/mcp/self');
    const fleet = await mcpClient(h, h.fleetKey);
    for (const client of [self, fleet]) {
      await expect(callTool(client, 'report_conversation', { conversation_id: 'c-forged', provider: 'claude-code' })).rejects.toThrow(
        /report_conversation not found/,
      );
    }
    expect((await h.request('GET', `/api/v1/sessions/${s.id}`, { token: h.fleetKey })).body.session.provider_conversation).toBeNull();
    // the positive control: the same token over REST (what the hook does) is recorded, and says how
    const r = await h.request('POST', `/api/v1/sessions/${s.id}/conversation`, { token: s.token, body: { provider: 'claude-code', conversation_id: 'c-1' } });
    expect(r.body).toMatchObject({ changed: true, source: 'runtime-reported' });
    const listed = await h.request('GET', `/api/v1/sessions/${s.id}/conversations`, { token: s.token });
    expect(listed.body.conversations).toEqual([expect.objectContaining({ conversation_id: 'c-1', status: 'current', sources: ['runtime-reported'] })]);
    await self.close();
    await fleet.close();
  });
});
