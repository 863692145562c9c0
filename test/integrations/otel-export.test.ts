import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { exportToOtlp, spanIdFor, traceIdFor } from '../../src/integrations/otel-export.js';

/** A real OTLP/HTTP receiver (JSON encoding), in the test process. */
function receiver(): Promise<{ server: Server; url: string; spans: () => any[]; raw: () => string }> {
  const bodies: any[] = [];
  let raw = '';
  return new Promise((resolve) => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        raw += body;
        if (req.url === '/v1/traces') bodies.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({
        server,
        url: `http://127.0.0.1:${port}`,
        raw: () => raw,
        spans: () => bodies.flatMap((b) => b.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans))),
      });
    });
  });
}

let rx: Awaited<ReturnType<typeof receiver>>;
beforeAll(async () => {
  rx = await receiver();
});
afterAll(() => rx.server.close());

describeEachDialect('OpenTelemetry export (spec 08)', (t) => {
  it('one span per session with the right parents, one link per uncle edge, no human words', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('otel'));
    const root = (await h.create(token, { title: 'otel root', prompt: 'the secret human words', agent_root: 'router', attach: true })).session;
    const child = (await h.create(h.fleetKey, { title: 'otel child', parent_session_id: root.id })).session;
    const other = (await h.create(h.fleetKey, { title: 'otel other root' })).session;
    await h.store.kysely
      .insertInto('session_uncles')
      .values({ session_id: child.id, uncle_session_id: other.id, source: 'rest.follow_up', basis: 'declared', recorded_by_actor_id: null, created_at: new Date().toISOString() })
      .execute();
    const before = rx.spans().length;
    const result = await exportToOtlp(h.ctx, { endpoint: rx.url, sessionIds: [root.id, child.id, other.id] });
    expect(result).toEqual({ spans: 3, links: 1, events: 1 });
    const spans = rx.spans().slice(before);
    expect(spans).toHaveLength(3);
    const byName = new Map(spans.map((s) => [s.name, s]));
    const r = byName.get('otel root');
    const c = byName.get('otel child');
    const o = byName.get('otel other root');
    expect(r.traceId).toBe(traceIdFor(root.uid));
    expect(r.spanId).toBe(spanIdFor(root.uid));
    expect(r.parentSpanId ?? '').toBe('');
    expect(c.traceId).toBe(r.traceId);
    expect(c.parentSpanId).toBe(r.spanId);
    expect(o.traceId).toBe(traceIdFor(other.uid));
    expect(c.links).toHaveLength(1);
    expect(c.links[0].spanId).toBe(o.spanId);
    const linkAttrs = Object.fromEntries(c.links[0].attributes.map((a: any) => [a.key, a.value.stringValue ?? a.value.intValue]));
    expect(linkAttrs).toMatchObject({ 'warrant.edge': 'uncle', 'warrant.edge.basis': 'declared' });
    const attrs = Object.fromEntries(r.attributes.map((a: any) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue]));
    expect(attrs).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'router', 'warrant.genesis': 'cli' });
    expect(r.events).toHaveLength(1);
    expect(r.events[0].name).toBe('warrant.human_message');
    expect(rx.raw()).not.toContain('the secret human words');
  });

  it('fails loudly when the collector cannot be reached', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'unreachable' })).session;
    await expect(exportToOtlp(h.ctx, { endpoint: 'http://127.0.0.1:1', sessionIds: [s.id] })).rejects.toThrow(/OTLP export/);
  });
});
