import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';
import { CLI, startServer, type ServerProcess } from '../helpers/server-process.js';

describeEachDialect('MCP over Streamable HTTP, the real SDK client in-process', (t) => {
  it('serves the sessions group on /mcp and the self_session group on /mcp/self', async () => {
    const h = t();
    const fleet = await mcpClient(h, h.fleetKey);
    const names = (await fleet.listTools()).tools.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(['start_session', 'list_sessions', 'get_session', 'action_session']));
    for (const name of names) expect(name).toMatch(/^[a-z_]{1,40}$/);
    await fleet.close();
    const s = await h.create(h.fleetKey, { title: 'self', attach: true });
    const self = await mcpClient(h, s.session_token, '/mcp/self');
    const selfNames = (await self.listTools()).tools.map((x) => x.name);
    expect(selfNames).toContain('get_session');
    for (const forbidden of ['start_session', 'action_session', 'list_sessions']) expect(selfNames).not.toContain(forbidden);
    const me = await callTool(self, 'get_session', {});
    expect(me.isError).toBe(false);
    expect(me.data.session.id).toBe(s.session.id);
    expect(me.text).toContain(`#${s.session.id} self`);
    await self.close();
  });

  it('refuses /mcp/self to anything but a session token, and /mcp without a token', async () => {
    const h = t();
    const r = await h.request('POST', '/mcp/self', { token: h.fleetKey, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('forbidden');
    const none = await h.request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('unauthenticated');
    // a Bearer challenge with our message and the protected-resource metadata (RFC 9728), which names no authorization server
    const noneChallenge = none.headers.get('www-authenticate')!;
    expect(noneChallenge).toMatch(
      /^Bearer realm="warrant", error_description="[^"]+", resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
    expect(noneChallenge).toContain('error_description="This route needs a credential: send Authorization: Bearer <token>."');
    for (const path of ['/mcp', '/mcp/self'] as const) {
      const bad = await h.request('POST', path, { token: 'wrt_s_not-a-real-token', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      expect([bad.status, bad.body.error]).toEqual([401, 'invalid-token']);
      const challenge = bad.headers.get('www-authenticate')!;
      expect(challenge).toMatch(/^Bearer realm="warrant", error="invalid_token", error_description="[^"]+", resource_metadata="[^"]+"$/);
      expect(challenge).toContain(bad.body.message);
      const metadataUrl = new URL(/resource_metadata="([^"]+)"/.exec(challenge)![1]!);
      expect(metadataUrl.pathname).toBe(`/.well-known/oauth-protected-resource${path}`);
      const metadata = await h.request('GET', metadataUrl.pathname, { token: null });
      expect(metadata.status).toBe(200);
      expect(metadata.body.resource).toBe(`${metadataUrl.origin}${path}`);
      expect(metadata.body.bearer_methods_supported).toEqual(['header']);
      expect(metadata.body).not.toHaveProperty('authorization_servers');
      expect(metadata.body.warrant_credentials).toContain('No OAuth');
    }
    // a client that starts OAuth anyway and registers at the origin gets Warrant's refusal
    const register = await h.request('POST', '/register', { token: null, body: { redirect_uris: ['http://127.0.0.1:1/cb'] } });
    expect([register.status, register.body.error]).toEqual([404, 'not-found']);
    expect(register.body.message).toContain('offers no OAuth sign-in');
    // the SDK's own client, holding a bad token, fails with Warrant's message (no OAuth provider asked for)
    await expect(mcpClient(h, 'wrt_s_not-a-real-token')).rejects.toThrow(/invalid-token|not known to this deployment/);
    // a refusal that is not about the credential carries no challenge
    expect(r.headers.get('www-authenticate')).toBeNull();
  });

  it('checks Host and Origin against the allowlist (DNS-rebinding protection)', async () => {
    const h = t();
    const host = await h.request('POST', '/mcp', {
      token: h.fleetKey,
      headers: { host: 'evil.example' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(host.status).toBe(403);
    expect(host.body.error).toBe('host-not-allowed');
    const origin = await h.request('POST', '/mcp', {
      token: h.fleetKey,
      headers: { origin: 'http://evil.example' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(origin.status).toBe(403);
    expect(origin.body.error).toBe('origin-not-allowed');
  });

  it('calls tools; tool errors carry the same tokens as REST', async () => {
    const h = t();
    const client = await mcpClient(h, h.fleetKey);
    const started = await callTool(client, 'start_session', { title: 'via mcp', parent_session_id: 'abcdef0' });
    expect(started.isError).toBe(false);
    expect(started.data.parent_resolution).toMatchObject({ dropped: 'prefix-too-short', resolved_id: null });
    expect(started.text).toContain('dropped: prefix-too-short');
    const id = started.data.session.id;
    const got = await callTool(client, 'get_session', { session_id: `#${id}` });
    expect(got.data.session.title).toBe('via mcp');
    const missing = await callTool(client, 'get_session', { session_id: 999999 });
    expect(missing.isError).toBe(true);
    const rest = await h.request('GET', '/api/v1/sessions/999999', { token: h.fleetKey });
    expect(missing.data.error).toBe(rest.body.error);
    expect(missing.text).toContain('session-not-found');
    const archived = await callTool(client, 'action_session', { action: 'archive', session_id: id });
    expect(archived.data).toEqual({ archived: [id], skipped: [] });
    const invalid = await callTool(client, 'action_session', { action: 'stop', session_id: id });
    expect(invalid.isError).toBe(true);
    expect(invalid.data.error).toBe('invalid-transition');
    const list = await callTool(client, 'list_sessions', { status: 'archived' });
    expect(list.data.sessions.map((s: any) => s.id)).toContain(id);
    await client.close();
  });

  it('a human token over MCP acts with basis delegated', async () => {
    const h = t();
    const { token, user } = await h.human(uniqueKey('mcp-human'));
    const client = await mcpClient(h, token);
    const started = await callTool(client, 'start_session', { title: 'a model holding a human token' });
    expect(started.data.session).toMatchObject({ creator: { kind: 'human', ref: user.key }, creator_basis: 'delegated', cause_basis: 'delegated' });
    await client.close();
  });
});

describe('MCP against a real listening server: HTTP, and stdio through `warrant mcp`', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('the SDK client lists and calls tools over HTTP', async () => {
    const client = new Client({ name: 'http-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers: { authorization: `Bearer ${server.fleetKey}` } } }),
    );
    expect((await client.listTools()).tools.map((x) => x.name)).toContain('start_session');
    const r = (await client.callTool({ name: 'start_session', arguments: { title: 'over http' } })) as any;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.session.title).toBe('over http');
    await client.close();
  });

  it('the SDK client lists and calls tools over stdio (a thin proxy to the server)', async () => {
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: { ...process.env, WARRANT_URL: server.url, WARRANT_TOKEN: server.fleetKey },
      }),
    );
    expect((await client.listTools()).tools.map((x) => x.name)).toEqual(expect.arrayContaining(['start_session', 'get_session', 'action_session']));
    const ok = (await client.callTool({ name: 'start_session', arguments: { title: 'over stdio' } })) as any;
    expect(ok.structuredContent.session.title).toBe('over stdio');
    const err = (await client.callTool({ name: 'get_session', arguments: { session_id: 424242 } })) as any;
    expect(err.isError).toBe(true);
    expect(err.structuredContent.error).toBe('session-not-found');
    await client.close();
  });

  it('`warrant mcp --self` serves the self_session tools with WARRANT_SESSION_TOKEN', async () => {
    const created = await fetch(`${server.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.fleetKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'stdio self', attach: true }),
    }).then((r) => r.json());
    const client = new Client({ name: 'stdio-self', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--self'],
        env: { ...process.env, WARRANT_URL: server.url, WARRANT_SESSION_TOKEN: created.session_token, WARRANT_TOKEN: '' },
      }),
    );
    const names = (await client.listTools()).tools.map((x) => x.name);
    expect(names).toContain('get_session');
    expect(names).not.toContain('start_session');
    const me = (await client.callTool({ name: 'get_session', arguments: {} })) as any;
    expect(me.structuredContent.session.id).toBe(created.session.id);
    await client.close();
  });
});
