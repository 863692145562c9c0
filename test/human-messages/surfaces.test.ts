import { expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { changeSetting } from '../../src/app/settings.js';
import { AFFIRMATIVE_ABSENCE } from '../../src/core/human-record.js';
import { HUMAN_MESSAGE_CAVEATS } from '../../src/mcp/tools/human-caveats.js';
import { cli, listen } from '../helpers/cli.js';
import { describeEachDialect, openHarness, uniqueKey } from '../helpers/harness.js';
import { mcpClient } from '../helpers/mcp-client.js';

describeEachDialect('the caveat inventory lives in the tool descriptions (docs/design/capture.md)', (t) => {
  it('get_session_provenance carries every caveat, on both MCP surfaces; get_session and check_warrant point to it', async () => {
    const h = t();
    const live = await h.create(h.fleetKey, { title: 'self', attach: true });
    for (const [path, token] of [
      ['/mcp', h.fleetKey],
      ['/mcp/self', live.session_token],
    ] as const) {
      const client = await mcpClient(h, token, path);
      const tools = new Map((await client.listTools()).tools.map((x) => [x.name, x.description ?? '']));
      const prov = tools.get('get_session_provenance')!;
      expect(prov, `${path} get_session_provenance`).toBeDefined();
      for (const caveat of HUMAN_MESSAGE_CAVEATS) expect(prov).toContain(caveat);
      for (const name of ['get_session', 'check_warrant'])
        expect(tools.get(name), `${path} ${name}`).toContain("Read human messages as `get_session_provenance`'s description says.");
      // each claim of docs/design/capture.md's inventory, pinned by its words (the hierarchy's in get_session)
      const session = tools.get('get_session')!;
      expect(session).toMatch(/Indentation is the spawn edge/);
      expect(session).toMatch(/not "most recently talked to"/);
      expect(session).toMatch(/`also senior: #N` is an uncle edge/);
      expect(prov).toMatch(/self-declared unless authenticated/);
      expect(prov).toMatch(/capture keys off the authenticated human at the input boundary/);
      expect(prov).toMatch(/`here` is a named human speaking to THIS session/);
      expect(prov).toMatch(/never an instruction to this session/);
      expect(prov).toMatch(/Absence is meaningful only where no capture gap is listed/);
      expect(prov).toContain(`"${AFFIRMATIVE_ABSENCE}"`);
      expect(prov).toMatch(/Read the record before relying on what a human asked for/);
      expect(prov).toMatch(/Known blind spot/);
      await client.close();
    }
  });

  it('no MCP tool and no REST route reads or writes the roster or tokens', async () => {
    const h = t();
    const live = await h.create(h.fleetKey, { title: 'self', attach: true });
    for (const [path, token] of [
      ['/mcp', h.fleetKey],
      ['/mcp/self', live.session_token],
    ] as const) {
      const client = await mcpClient(h, token, path);
      for (const tool of (await client.listTools()).tools) expect(tool.name).not.toMatch(/user|roster|token|setting|admin/);
      await client.close();
    }
    const doc = (await h.request('GET', '/api/v1/openapi.json')).body;
    for (const p of Object.keys(doc.paths)) expect(p).not.toMatch(/users|roster|tokens|settings/);
    for (const path of ['/api/v1/users', '/api/v1/roster', '/api/v1/tokens', '/api/v1/settings']) {
      for (const token of [h.fleetKey, live.session_token, await h.clientKey(`c${Date.now() % 1e6}`)]) {
        expect((await h.request('GET', path, { token })).status).toBe(404);
        expect((await h.request('POST', path, { token, body: { key: 'mallory', slack_user_ids: ['U0MALLORY'] } })).status).toBe(404);
      }
    }
    // the roster pages need an admin's browser sign-in; a bearer token gets the sign-in page, never data
    const page = await h.request('GET', '/supervisor/users', { token: h.fleetKey });
    expect(page.text).not.toContain('U0MALLORY');
    expect([200, 302, 303, 401, 403]).toContain(page.status);
    expect(page.text).not.toMatch(/Slack ids/i);
  });
});

describeEachDialect('`warrant check` exits with the gate (docs/design/surfaces.md)', (t) => {
  it('0 here, 3 elsewhere, 4 none, 5 cannot-say', async () => {
    const h = await openHarness(t().dialect);
    const server = await listen(h);
    try {
      const env = { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey };
      const early = (await h.create(h.fleetKey, { title: 'before capture' })).session;
      const cannot = await cli(['check', String(early.id)], env);
      expect(cannot.code).toBe(5);
      expect(cannot.stdout).toContain('cannot-say');
      const key = uniqueKey('gate');
      const { token } = await h.human(key, { admin: true });
      await changeSetting(h.ctx, systemCaller('cli'), 'admin_user', key);
      const root = (await h.create(h.fleetKey, { title: 'root', attach: true })).session;
      const a = (await h.create(h.fleetKey, { title: 'a', parent_session_id: root.id, attach: true })).session;
      const none = await cli(['check', String(a.id)], env);
      expect(none.code).toBe(4);
      await h.request('POST', `/api/v1/sessions/${root.id}/follow_up`, { token, body: { content: 'go' } });
      const elsewhere = await cli(['check', String(a.id), '--json'], env);
      expect(elsewhere.code).toBe(3);
      expect(JSON.parse(elsewhere.stdout).answer).toBe('elsewhere');
      const here = await cli(['check', String(root.id)], env);
      expect(here.code).toBe(0);
      expect(here.stdout).toContain('here');
    } finally {
      await server.close();
      await h.close();
    }
  });
});
