import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';

/**
 * The shutdown gate (docs/operations.md, "Shutdown"): once the node starts draining, every
 * request — REST, public routes, MCP, web — is answered 503 `shutting-down` with
 * `Connection: close` and changes nothing. The drain itself runs in a real server process:
 * test/reliability/shutdown.test.ts.
 */
describeEachDialect('the shutdown gate', (t) => {
  it('open: requests are served; closed: every surface answers 503 shutting-down and nothing is written', async () => {
    const h = t();
    const count = async () => (await h.store.kysely.selectFrom('sessions').select('title').execute()).map((r) => r.title);
    expect((await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'before the signal' } })).status).toBe(201);
    const before = await count();
    h.service.gate.close();
    {
      const attempts = [
        await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'after the signal' } }),
        await h.request('GET', '/api/v1/sessions', { token: h.fleetKey }),
        await h.request('GET', '/api/v1/health', { token: null }),
        await h.request('POST', '/mcp', {
          token: h.fleetKey,
          body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
          headers: { accept: 'application/json, text/event-stream' },
        }),
        await h.request('GET', '/ui', { token: null }),
      ];
      for (const r of attempts) {
        expect(r.status).toBe(503);
        expect(r.body.error).toBe('shutting-down');
        expect(r.headers.get('connection')).toBe('close');
      }
    }
    // the store is still open (the drain closes it later): nothing was written
    const after = await count();
    expect(after).not.toContain('after the signal');
    expect(after).toEqual(before);
  });
});
