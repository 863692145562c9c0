import { expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { changeSetting } from '../../src/app/settings.js';
import { describeEachDialect, openHarness, uniqueKey, type Harness } from '../helpers/harness.js';
import { insertSpawnChain } from '../helpers/lineage.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';

/**
 * docs/design/capture.md "The policy gate": MCP `check_warrant` answers here / elsewhere / none / cannot-say
 * with evidence, gaps and truncated — the same verdict as `GET …/warrant` (one computation,
 * every surface), on the `sessions` surface and on `/mcp/self` for the session itself.
 */
describeEachDialect('MCP check_warrant (docs/design/capture.md, docs/design/surfaces.md)', (t) => {
  it('answers here, elsewhere, none and cannot-say exactly like REST, with evidence, gaps and the truncation line', async () => {
    const h: Harness = await openHarness(t().dialect);
    const client = await mcpClient(h, h.fleetKey);
    try {
      // the web UI is instrumented from now on: hierarchies that begin later can answer "none"
      const key = uniqueKey('admin');
      const { token } = await h.human(key, { admin: true });
      await changeSetting(h.ctx, systemCaller('cli'), 'admin_user', key);

      const root = (await h.create(h.fleetKey, { title: 'root', attach: true })).session;
      const asked = await h.create(h.fleetKey, { title: 'asked', parent_session_id: root.id, attach: true });
      const sibling = (await h.create(h.fleetKey, { title: 'sibling', parent_session_id: root.id })).session;
      const gate = async (id: number) => {
        const mcp = await callTool(client, 'check_warrant', { session_id: id });
        expect(mcp.isError).toBe(false);
        const rest = await h.request('GET', `/api/v1/sessions/${id}/warrant`, { token: h.fleetKey });
        // the structured result is REST's verdict led by `notes`: the rendering's sentences
        const { notes, ...verdict } = mcp.data;
        expect(verdict, `MCP and REST agree on #${id}`).toEqual(rest.body);
        expect(Object.keys(mcp.data)[0]).toBe('notes');
        expect(mcp.text).toContain(notes[0].replace(/^([a-z-]+): /, '$1 — '));
        for (const note of notes.slice(1)) expect(mcp.text).toContain(note);
        return mcp;
      };

      // none: nobody spoke, every channel instrumented, the walk complete
      const none = await gate(sibling.id);
      expect(none.data).toMatchObject({ session_id: sibling.id, answer: 'none', evidence: [], gaps: [], truncated: false, counts: { here: 0, elsewhere: 0 } });
      expect(none.text).toBe(`warrant for #${sibling.id}: none — no named human spoke anywhere in this hierarchy, and every channel could have recorded it.`);
      expect(none.data.notes).toEqual(['none: no named human spoke anywhere in this hierarchy, and every channel could have recorded it.']);

      // here: a human follow-up on the asked session
      const fu = await h.request('POST', `/api/v1/sessions/${asked.session.id}/follow_up`, { token, body: { content: 'do the thing' } });
      expect(fu.status).toBe(201);
      const messageId = (await h.request('GET', `/api/v1/sessions/${asked.session.id}/provenance`, { token: h.fleetKey })).body.human_messages.entries[0].id;
      const here = await gate(asked.session.id);
      expect(here.data).toMatchObject({ answer: 'here', evidence: [messageId], gaps: [], truncated: false, counts: { here: 1, elsewhere: 0 } });
      expect(here.text.split('\n')).toEqual([
        `warrant for #${asked.session.id}: here — a named human asked for this, in this session.`,
        `evidence: human message ${messageId}`,
      ]);

      // the session asks about itself on its own surface: the same verdict
      const self = await mcpClient(h, asked.session_token, '/mcp/self');
      try {
        const mine = await callTool(self, 'check_warrant', {});
        expect(mine.data).toEqual(here.data);
        expect(mine.data.notes).toEqual(['here: a named human asked for this, in this session.']);
      } finally {
        await self.close();
      }

      // elsewhere: the sibling's hierarchy holds the message, not the sibling
      const elsewhere = await gate(sibling.id);
      expect(elsewhere.data).toMatchObject({ answer: 'elsewhere', evidence: [messageId], counts: { here: 0, elsewhere: 1 } });
      expect(elsewhere.text).toContain(`warrant for #${sibling.id}: elsewhere — a named human spoke elsewhere in this hierarchy`);
      expect(elsewhere.data.notes[0]).toContain('not an instruction to this session');

      // cannot-say (cut walk): deeper than the bounds, no gap, but not every session was searched
      const chain = await insertSpawnChain(h, 12);
      const deep = await gate(chain[11]!);
      expect(deep.data).toMatchObject({ answer: 'cannot-say', evidence: [], gaps: [], truncated: true });
      expect(deep.text).toContain('The hierarchy was cut by its bounds: not every session was searched.');
      expect(deep.data.notes).toEqual([expect.stringMatching(/^cannot-say: /), 'The hierarchy was cut by its bounds: not every session was searched.']);

      // cannot-say (gap): a Slack-started session while Slack ingress is not configured
      const slack = (await h.create(h.fleetKey, { title: 'came from slack' })).session;
      await h.store.kysely.updateTable('sessions').set({ genesis: 'slack' }).where('id', '=', slack.id).execute();
      const gapped = await gate(slack.id);
      expect(gapped.data).toMatchObject({ answer: 'cannot-say', evidence: [], truncated: false, gaps: [{ channel: 'slack', kind: 'not-instrumented' }] });
      expect(gapped.text).toMatch(/^- Capture is NOT configured for Slack/m);
      expect(gapped.text).not.toContain('not every session was searched');
      expect(gapped.data.notes[1]).toBe(gapped.data.gaps[0].message);
    } finally {
      await client.close();
      await h.close();
    }
  });
});
