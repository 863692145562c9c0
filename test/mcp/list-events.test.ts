import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { causationWorld, type CausationWorld } from '../helpers/causation-fixture.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';

/** `list_events` and `list_sessions caused_by` through the real MCP SDK client (docs/attribution.md "What a person caused"). */
describeEachDialect('MCP list_events (the real SDK client)', (t) => {
  let w: CausationWorld;
  beforeAll(async () => {
    w = await causationWorld(t());
  });

  it('lists what alice caused, paged with next_cursor and a note saying so, each event once', async () => {
    const h = t();
    const client = await mcpClient(h, h.fleetKey);
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const r = await callTool(client, 'list_events', { cause: w.alice.key, limit: 4, ...(cursor ? { cursor } : {}) });
      expect(r.isError, r.text).toBe(false);
      for (const e of r.data.events) {
        expect(e.cause.ref).toBe(w.alice.key);
        seen.push(e.id);
      }
      cursor = r.data.next_cursor ?? undefined;
      if (!cursor) break;
      expect(r.data.notes).toEqual([`More: call list_events again with the same filters and cursor "${cursor}"`]);
      expect(r.text).toContain(`## Events — cause ${w.alice.key} (newest first)`);
    }
    expect(new Set(seen).size).toBe(seen.length);
    const rest = await h.request('GET', `/api/v1/events?cause=${w.alice.key}&limit=200`, { token: h.fleetKey });
    expect(seen).toEqual(rest.body.events.map((e: { id: number }) => e.id));
  });

  it('events by credential, and list_sessions caused_by, answer as REST does; a cursor of another list is a refusal with its token', async () => {
    const h = t();
    const client = await mcpClient(h, h.fleetKey);
    const created = await h.request('GET', `/api/v1/sessions/${w.router.id}/events`, { token: h.fleetKey });
    const credential = created.body.events[0].credential_id as number;
    const byToken = await callTool(client, 'list_events', { credential, limit: 200 });
    const rest = await h.request('GET', `/api/v1/events?credential=${credential}&limit=200`, { token: h.fleetKey });
    expect(byToken.data.events).toEqual(rest.body.events);
    expect(byToken.data.events.length).toBeGreaterThan(0);

    const sessions = await callTool(client, 'list_sessions', { caused_by: w.alice.key, limit: 200 });
    expect(sessions.data.sessions.map((s: { id: number }) => s.id).sort((a: number, b: number) => a - b)).toEqual(w.alices);

    const refused = await callTool(client, 'list_events', { actor: w.alice.key, cursor: 'not-a-cursor' });
    expect(refused.isError).toBe(true);
    expect(refused.data.error).toBe('invalid-request');
  });
});
