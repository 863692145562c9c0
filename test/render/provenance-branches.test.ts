import { expect, it } from 'vitest';
import { AFFIRMATIVE_ABSENCE } from '../../src/core/human-record.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { insertSpawnChain } from '../helpers/lineage.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';

/**
 * docs/design/capture.md "Provenance rendering": the branches of the one renderer that only a cut walk and a
 * roster note reach — the floor counts ("at least"), "not every session was searched", the
 * qualified `**Complete:**` line and the `### People` block — on MCP `get_session` and on
 * REST `provenance?format=markdown`.
 */
describeEachDialect('provenance rendering of a cut walk with a human who has notes (docs/design/capture.md)', (t) => {
  it('floors the counts, says not every session was searched, qualifies Complete, and describes the human under People', async () => {
    const h = t();
    const key = uniqueKey('nora');
    const notes = 'Owns the release train; her word is final on deploys.';
    const { token } = await h.human(key, { displayName: 'Nora Notes', notes });
    // 12 sessions deep: from the bottom the walk goes 8 levels up, so the top of the chain is never reached
    const chain = await insertSpawnChain(h, 12);
    const bottom = chain[11]!;
    const middle = chain[6]!;
    for (const [id, content] of [
      [bottom, 'ship the fix here'],
      [middle, 'context for the middle'],
    ] as const) {
      const r = await h.request('POST', `/api/v1/sessions/${id}/follow_up`, { token, body: { content } });
      expect(r.status, r.text).toBe(201);
    }

    const client = await mcpClient(h, h.fleetKey);
    let summary: string;
    try {
      summary = (await callTool(client, 'get_session', { session_id: bottom })).text;
    } finally {
      await client.close();
    }
    const rest = await h.request('GET', `/api/v1/sessions/${bottom}/provenance?format=markdown`, { token: h.fleetKey });
    expect(rest.status).toBe(200);

    for (const [surface, text] of [
      ['MCP get_session', summary],
      ['REST provenance markdown', rest.text],
    ] as const) {
      // the hierarchy section says it was cut, with its numbers
      expect(text, surface).toContain('Showing at most 150 sessions, 8 levels from the highest ancestor reached. This tree is larger.');
      // the counts are a floor and the header says why
      expect(text, surface).toContain('at least 1 in this session · at least 1 elsewhere in the hierarchy');
      expect(text, surface).toContain('The hierarchy was cut by its bounds, so not every session was searched: the counts are a floor.');
      // a cut walk is never an affirmative absence, even where nothing is on record
      expect(text, surface).not.toContain(AFFIRMATIVE_ABSENCE);
      // both entries, each naming the human
      expect(text, surface).toMatch(new RegExp(`^- here · Nora Notes \\(${key}\\) · #${bottom} · cli\\.follow_up · `, 'm'));
      expect(text, surface).toMatch(new RegExp(`^- elsewhere · Nora Notes \\(${key}\\) · #${middle} · cli\\.follow_up · `, 'm'));
      // People: the human once, with the note indented under the name
      const people = text.slice(text.indexOf('### People'));
      expect(text.indexOf('### People'), surface).toBeGreaterThan(0);
      expect(people, surface).toContain(`- Nora Notes (${key}):\n    ${notes}`);
      expect(people.split('- Nora Notes').length - 1, surface).toBe(1);
    }

    // the summary's Complete line claims only what the walk reached
    expect(summary).toContain('**Complete:** yes — every entry the walk reached is listed (the walk was cut, so sessions beyond it were not searched).');
    expect(summary).not.toContain('every entry of the record is listed');
    expect(summary.split('\n').filter((l) => l.startsWith('**Complete:**'))).toHaveLength(1);
    // the full rendering has no Complete line: it is paged instead
    expect(rest.text).not.toContain('**Complete:**');

    // the JSON of the same call says truncated and carries the same counts and the note
    const json = (await h.request('GET', `/api/v1/sessions/${bottom}/provenance`, { token: h.fleetKey })).body;
    expect(json.session_hierarchy.truncated).toBe(true);
    expect(json.human_messages).toMatchObject({ truncated: true, counts: { here: 1, elsewhere: 1 } });
  });

  it('without a note, there is no People block (only humans with a note are described)', async () => {
    const h = t();
    const key = uniqueKey('nonote');
    const { token } = await h.human(key, { displayName: 'No Note' });
    const s = (await h.create(h.fleetKey, { title: 'asked' })).session;
    expect((await h.request('POST', `/api/v1/sessions/${s.id}/follow_up`, { token, body: { content: 'please' } })).status).toBe(201);
    const text = (await h.request('GET', `/api/v1/sessions/${s.id}/provenance?format=markdown`, { token: h.fleetKey })).text;
    expect(text).toContain('1 in this session · 0 elsewhere in the hierarchy');
    expect(text).not.toContain('at least');
    expect(text).not.toContain('### People');
  });
});
