import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { mcpServerPoolOf } from '../../src/mcp/http-mount.js';
import { buildMcpServer } from '../../src/mcp/server.js';
import type { ToolGroup } from '../../src/mcp/tool.js';

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };

/** The JSON-RPC result of a one-message SSE or JSON response. */
async function rpcResult(r: Response): Promise<any> {
  const text = await r.text();
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('');
  return JSON.parse(data).result;
}

describeEachDialect('MCP servers are reused across requests, identity stays per request', (t) => {
  it('two callers interleaved on the reused servers each see only their own session', async () => {
    const h = t();
    const a = await h.create(h.fleetKey, { title: 'caller a', attach: true });
    const b = await h.create(h.fleetKey, { title: 'caller b', attach: true });
    const ca = await mcpClient(h, a.session_token, '/mcp/self');
    const cb = await mcpClient(h, b.session_token, '/mcp/self');
    const pool = mcpServerPoolOf(h.ctx)!;
    expect(pool).toBeDefined();
    // warm: one call each, so the group's instance exists
    await callTool(ca, 'get_session', {});
    await callTool(cb, 'get_session', {});
    const before = { ...pool.stats };

    // one after another, alternating callers: the same instance serves them all, nothing is built
    for (let i = 0; i < 10; i++) {
      const [client, own] = i % 2 === 0 ? [ca, a] : [cb, b];
      const r = await callTool(client, 'get_session', {});
      expect(r.isError).toBe(false);
      expect(r.data.session.id).toBe(own.session.id);
      expect(r.text).toContain(`#${own.session.id} caller ${own === a ? 'a' : 'b'}`);
      expect(r.text).not.toContain(`#${(own === a ? b : a).session.id}`);
    }
    expect(pool.stats.built).toBe(before.built);
    expect(pool.stats.reused - before.reused).toBeGreaterThanOrEqual(10);

    // at once, interleaved: a few instances at most, each answer the caller's own
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? callTool(ca, 'get_session', {}) : callTool(cb, 'get_session', {}))));
    results.forEach((r, i) => {
      expect(r.isError).toBe(false);
      expect(r.data.session.id).toBe((i % 2 === 0 ? a : b).session.id);
    });
    expect(pool.stats.built - before.built).toBeLessThan(24);
    await ca.close();
    await cb.close();
  });

  it('the cached tools/list is what an unpatched SDK server lists, for both groups', async () => {
    const h = t();
    const s = await h.create(h.fleetKey, { title: 'lister', attach: true });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    for (const [group, path, token] of [
      ['sessions', '/mcp', h.fleetKey],
      ['self_session', '/mcp/self', s.session_token],
    ] as [ToolGroup, string, string][]) {
      const served = await rpcResult(
        await h.service.app.request(`http://localhost${path}`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body }),
      );
      // the SDK's own listing, from a server built without the cache
      const plain = createMcpHandler(() => buildMcpServer(h.ctx, group));
      const sdk = await rpcResult(await plain.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: MCP_HEADERS, body })));
      expect(served.tools.length).toBeGreaterThan(0);
      expect(served).toEqual(sdk);
    }
  });
  it('a 2025-era POST is answered with one JSON body on a pooled instance; other methods, notifications and bad JSON as the SDK answers them', async () => {
    const h = t();
    const headers = { ...MCP_HEADERS, authorization: `Bearer ${h.fleetKey}` };
    const post = (body: string) => h.service.app.request('http://localhost/mcp', { method: 'POST', headers, body });
    const pool = mcpServerPoolOf(h.ctx)!;
    await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    const before = { ...pool.stats };
    const pong = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }));
    expect(pong.status).toBe(200);
    expect(pong.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(await pong.text())).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(pool.stats.built).toBe(before.built);
    expect(pool.stats.reused).toBe(before.reused + 1);
    // a batch of two requests: both answers in one JSON array
    const batch = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ]),
    );
    expect(batch.status).toBe(200);
    expect((JSON.parse(await batch.text()) as { id: number }[]).map((r) => r.id).sort()).toEqual([1, 2]);
    // a notification is accepted with no body
    expect((await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))).status).toBe(202);
    // not JSON: the SDK's parse error, not a 500
    const bad = await post('{not json');
    expect(bad.status).toBe(400);
    expect(JSON.parse(await bad.text()).error.code).toBe(-32700);
    // a stateless server has no session stream to open
    expect((await h.service.app.request('http://localhost/mcp', { method: 'GET', headers })).status).toBe(405);
  });

  it('a lone tools/list is answered from the listing serialised once, byte for byte what the SDK exchange sends; anything else reaches the SDK', async () => {
    const h = t();
    const headers = { ...MCP_HEADERS, authorization: `Bearer ${h.fleetKey}` };
    const post = (body: unknown, extra: Record<string, string> = {}) =>
      h.service.app.request('http://localhost/mcp', { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    const pool = mcpServerPoolOf(h.ctx)!;
    await post({ jsonrpc: '2.0', id: 1, method: 'ping' });
    for (const id of [7, 'req-7', 0]) {
      const before = { ...pool.stats };
      const cached = await post({ jsonrpc: '2.0', id, method: 'tools/list' });
      expect(cached.status).toBe(200);
      expect(cached.headers.get('content-type')).toBe('application/json');
      const text = await cached.text();
      // no SDK exchange served it
      expect(pool.stats).toEqual(before);
      // the same request in a batch of one goes through the SDK's exchange: the same message, the same bytes
      const viaSdk = await post([{ jsonrpc: '2.0', id, method: 'tools/list' }]);
      expect(viaSdk.status).toBe(200);
      expect(pool.stats.reused).toBe(before.reused + 1);
      // (the SDK answers a batch of one with the lone message, not an array)
      expect(text).toBe(await viaSdk.text());
      expect(JSON.parse(text).result.tools.length).toBeGreaterThan(0);
    }
    // params (a cursor): the SDK answers
    const before = { ...pool.stats };
    const paged = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'x' } });
    expect(paged.status).toBe(200);
    expect(pool.stats.reused).toBe(before.reused + 1);
    // what the SDK refuses is still refused as it refuses it
    const unsupported = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.text()).toMatch(/Unsupported protocol version/);
    const unacceptable = await post({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, { accept: 'application/json' });
    expect(unacceptable.status).toBe(406);
    const badId = await post({ jsonrpc: '2.0', id: 1.5, method: 'tools/list' });
    expect(badId.status).toBe(400);
  });
});
