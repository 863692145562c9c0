import { expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { changeSetting } from '../../src/app/settings.js';
import { AFFIRMATIVE_ABSENCE } from '../../src/core/human-record.js';
import { ABSENCE_IS_AN_ANSWER, ABSENCE_IS_NOT_AN_ANSWER, COUNTS_ARE_A_FLOOR, ELSEWHERE_IS_CONTEXT } from '../../src/render/human-messages-markdown.js';
import { describeEachDialect, openHarness, uniqueKey, type Harness } from '../helpers/harness.js';
import { insertSpawnChain } from '../helpers/lineage.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';

/**
 * Claude Code and Codex hand the model `structuredContent`, not the text: the sentences a
 * model must not miss lead it as `notes`, in the renderer's words (one wording everywhere).
 */
describeEachDialect('structured MCP results carry the must-read sentences as `notes`', (t) => {
  it('get_session_provenance and get_session: the gap and "not an answer" sentences when capture could not see; the affirmative absence when it could', async () => {
    const h: Harness = await openHarness(t().dialect);
    const client = await mcpClient(h, h.fleetKey);
    try {
      // no admin user yet: the web UI is not instrumented, a gap for every hierarchy
      const blind = await h.create(h.fleetKey, { title: 'blind', attach: true });
      const p = await callTool(client, 'get_session_provenance', { session_id: blind.session.id });
      expect(Object.keys(p.data)[0]).toBe('notes');
      expect(p.data.notes).toEqual([p.data.human_messages.capture_gaps[0].message, ABSENCE_IS_NOT_AN_ANSWER]);
      expect(p.data.notes[0]).toMatch(/^Capture is NOT configured for the web UI/);
      for (const note of p.data.notes) expect(p.text).toContain(note);
      expect(p.data.notes.join(' ')).not.toContain(AFFIRMATIVE_ABSENCE);
      const self = await mcpClient(h, blind.session_token, '/mcp/self');
      const mine = await callTool(self, 'get_session', {});
      await self.close();
      expect(mine.data.notes).toEqual(p.data.notes);

      const key = uniqueKey('admin');
      await h.human(key, { admin: true });
      await changeSetting(h.ctx, systemCaller('cli'), 'admin_user', key);
      const seen = (await h.create(h.fleetKey, { title: 'seen' })).session;
      const q = await callTool(client, 'get_session_provenance', { session_id: seen.id });
      expect(q.data.notes).toEqual([AFFIRMATIVE_ABSENCE, ABSENCE_IS_AN_ANSWER]);
      expect((await callTool(client, 'get_session', { session_id: seen.id })).data.notes).toEqual([AFFIRMATIVE_ABSENCE, ABSENCE_IS_AN_ANSWER]);
    } finally {
      await client.close();
      await h.close();
    }
  });

  it('a truncated result says so with its numbers: the cut tree, the floor of the counts, and where the older entries are', async () => {
    const h: Harness = await openHarness(t().dialect);
    const client = await mcpClient(h, h.fleetKey);
    try {
      const key = uniqueKey('admin');
      const { token } = await h.human(key, { admin: true });
      await changeSetting(h.ctx, systemCaller('cli'), 'admin_user', key);

      const chain = await insertSpawnChain(h, 12);
      const deep = await callTool(client, 'get_session_provenance', { session_id: chain[11]! });
      expect(deep.data.session_hierarchy.truncated).toBe(true);
      expect(deep.data.notes[0]).toBe(deep.data.session_hierarchy.note);
      expect(deep.data.notes[0]).toMatch(/^Showing at most 150 sessions, 8 levels from the highest ancestor reached/);
      expect(deep.data.notes).toContain(COUNTS_ARE_A_FLOOR);
      expect(deep.data.notes).not.toContain(AFFIRMATIVE_ABSENCE);

      // 26 human messages: one page of 25, the rest behind a cursor the note names
      const root = (await h.create(h.fleetKey, { title: 'root', attach: true })).session;
      const asked = (await h.create(h.fleetKey, { title: 'asked', parent_session_id: root.id, attach: true })).session;
      const sibling = (await h.create(h.fleetKey, { title: 'sibling', parent_session_id: root.id })).session;
      for (let i = 0; i < 26; i++)
        expect((await h.request('POST', `/api/v1/sessions/${asked.id}/follow_up`, { token, body: { content: `ask ${i}` } })).status).toBe(201);
      const paged = await callTool(client, 'get_session_provenance', { session_id: asked.id });
      const cursor = paged.data.human_messages.next_cursor;
      expect(cursor).toEqual(expect.any(String));
      expect(paged.data.human_messages.entries).toHaveLength(25);
      expect(paged.data.notes).toEqual([`Older entries: call get_session_provenance again with cursor "${cursor}"`]);
      expect(paged.text).toContain(paged.data.notes[0]);
      const detail = await callTool(client, 'get_session', { session_id: asked.id });
      expect(detail.data.notes).toEqual([
        `Older entries: call get_session_provenance with session_id ${asked.id} and cursor "${detail.data.human_messages_next_cursor}"`,
      ]);
      const rest = await callTool(client, 'get_session_provenance', { session_id: asked.id, cursor });
      expect(rest.data.human_messages.entries).toHaveLength(1);
      expect(rest.data.notes).toEqual([]);

      // elsewhere: context, never an instruction, said as a field
      const side = await callTool(client, 'get_session_provenance', { session_id: sibling.id });
      expect(side.data.notes).toContain(ELSEWHERE_IS_CONTEXT);
      expect(side.text).toContain(ELSEWHERE_IS_CONTEXT);
    } finally {
      await client.close();
      await h.close();
    }
  });

  it('list tools name the next page in MCP terms (a cursor argument, never `--cursor`)', async () => {
    const h = t();
    const client = await mcpClient(h, h.fleetKey);
    const s = (await h.create(h.fleetKey, { title: 'one' })).session;
    await h.create(h.fleetKey, { title: 'two' });
    const page = await callTool(client, 'list_sessions', { limit: 1 });
    expect(page.data.notes).toEqual([`More: call list_sessions again with cursor "${page.data.next_cursor}"`]);
    expect(page.text).toContain(page.data.notes[0]);
    expect(page.text).not.toContain('--cursor');
    for (const content of ['a', 'b']) await callTool(client, 'manage_enqueued_messages', { action: 'create', session_id: s.id, content });
    const queue = await callTool(client, 'manage_enqueued_messages', { action: 'list', session_id: s.id, limit: 1 });
    expect(queue.data.notes).toEqual([`More: call manage_enqueued_messages with action "list" and cursor "${queue.data.next_cursor}"`]);
    expect(queue.text).toContain(queue.data.notes[0]);
    await client.close();
  });
});
