import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { changeSetting } from '../../src/app/settings.js';
import { cli, listen } from '../helpers/cli.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';

/**
 * A withdrawal is not silence: when the only human messages on record were withdrawn, the
 * gate keeps its verdict (withdrawn words are never evidence) but every surface says a human
 * asked and withdrew it — none says "no named human spoke".
 */
describeEachDialect('the gate after a withdrawal', (t) => {
  let h: Harness;
  let server: { url: string; close: () => Promise<void> };
  let humanToken = '';
  beforeAll(async () => {
    h = t();
    const key = uniqueKey('withdrawer');
    humanToken = (await h.human(key, { admin: true })).token;
    // every channel instrumented, so the verdict can be `none`
    await changeSetting(h.ctx, systemCaller('cli'), 'admin_user', key);
    server = await listen(h);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('REST (JSON and markdown), MCP (structured and text) and the CLI say the human asked and withdrew it', async () => {
    const target = (await h.create(h.fleetKey, { title: 'asked, then not' })).session.id as number;
    const sibling = (await h.create(h.fleetKey, { title: 'a sibling', parent_session_id: target })).session.id as number;
    const queued = await h.request('POST', `/api/v1/sessions/${target}/enqueued_messages`, { token: humanToken, body: { content: 'please deploy tonight' } });
    expect(queued.status, queued.text).toBe(201);
    const withdrawn = await h.request('DELETE', `/api/v1/sessions/${target}/enqueued_messages/${queued.body.inbox_item.id}`, { token: humanToken });
    expect(withdrawn.status, withdrawn.text).toBe(200);

    const here = 'a named human asked for this and withdrew it; nothing else is on record, and every channel could have recorded it';
    const json = await h.request('GET', `/api/v1/sessions/${target}/warrant`, { token: h.fleetKey });
    expect(json.body).toMatchObject({ answer: 'none', evidence: [], gaps: [], counts: { here: 1, elsewhere: 0 } });
    const md = await h.request('GET', `/api/v1/sessions/${target}/warrant?format=markdown`, { token: h.fleetKey });
    expect(md.text).toContain(`warrant for #${target}: none — ${here}.`);
    // from the child, the withdrawn message is elsewhere in its hierarchy
    const fromChild = await h.request('GET', `/api/v1/sessions/${sibling}/warrant?format=markdown`, { token: h.fleetKey });
    expect(fromChild.text).toContain('none — a named human spoke elsewhere in this hierarchy and withdrew it');

    const client = await mcpClient(h, h.fleetKey);
    const check = await callTool(client, 'check_warrant', { session_id: target }).finally(() => client.close());
    expect(check.data).toMatchObject({ answer: 'none', notes: [`none: ${here}.`] });
    expect(check.text).toContain(here);
    const out = await cli(['check', String(target)], { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey });
    expect(out.code, out.stderr).toBe(4);
    expect(out.stdout).toContain(here);
    for (const text of [md.text, fromChild.text, check.text, out.stdout]) expect(text).not.toContain('no named human spoke');
  });
});
