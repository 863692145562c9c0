import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, ManualClock, openHarness, uniqueKey, type Harness } from '../helpers/harness.js';
import { runCli, storeArgs } from '../helpers/cli.js';
import { exportToOtlp, spanIdFor, startContinuousOtelExport, traceIdFor } from '../../src/integrations/otel-export.js';

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

describeEachDialect('OpenTelemetry export (docs/integrations.md)', (t) => {
  it('one span per session with the right parents, one link per uncle edge, no human words', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('otel'));
    const root = (await h.create(token, { title: 'otel root', prompt: 'the secret human words', agent_root: 'router', attach: true })).session;
    const child = (await h.create(h.fleetKey, { title: 'otel child', parent_session_id: root.id })).session;
    const other = (await h.create(h.fleetKey, { title: 'otel other root' })).session;
    await h.store.kysely
      .insertInto('session_uncles')
      .values({
        session_id: child.id,
        uncle_session_id: other.id,
        source: 'rest.follow_up',
        basis: 'declared',
        recorded_by_actor_id: null,
        created_at: new Date().toISOString(),
      })
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

/** A span's attributes as a plain object. */
function attributesOf(span: any): Record<string, unknown> {
  return Object.fromEntries(span.attributes.map((a: any) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue]));
}

/** The spans the receiver got for one session (by its uid attribute). */
function spansOf(uid: string): any[] {
  return rx.spans().filter((s) => attributesOf(s)['warrant.session.uid'] === uid);
}

/** Waits until `done()` holds; the timeout only guards against a hang, it asserts nothing about time. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A session that ran in a provider conversation and then stopped (a terminal state). */
async function endedSession(h: Harness, title: string, conversation: string): Promise<{ id: number; uid: string }> {
  const s = await h.create(h.fleetKey, { title, attach: true });
  const id = s.session.id as number;
  const conv = await h.request('POST', `/api/v1/sessions/${id}/conversation`, {
    token: s.session_token,
    body: { provider: 'claude-code', conversation_id: conversation },
  });
  expect(conv.status, conv.text).toBe(200);
  const exit = await h.request('POST', `/api/v1/sessions/${id}/runtime`, { token: s.session_token, body: { state: 'exited', code: 0 } });
  expect(exit.body.session?.status ?? (await h.request('GET', `/api/v1/sessions/${id}`, { token: h.fleetKey })).body.session.status).toBe('stopped');
  return { id, uid: s.session.uid };
}

describeEachDialect('OpenTelemetry export through the CLI and the continuous exporter (docs/integrations.md)', (t) => {
  it('`warrant export otel --endpoint` sends the sessions as spans, with gen_ai.conversation.id', async () => {
    const h = t();
    const s = await endedSession(h, 'exported by the cli', `conv-cli-${uniqueKey('c')}`);
    const other = (await h.create(h.fleetKey, { title: 'not asked for' })).session;
    const r = await runCli(['export', 'otel', '--endpoint', rx.url, '--session', String(s.id), '--json', ...storeArgs(h)]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ spans: 1, links: 0, events: 0 });
    const [span] = spansOf(s.uid);
    expect(spansOf(s.uid)).toHaveLength(1);
    expect(span.name).toBe('exported by the cli');
    expect(span.traceId).toBe(traceIdFor(s.uid));
    const attrs = attributesOf(span);
    expect(attrs['gen_ai.conversation.id']).toMatch(/^conv-cli-/);
    expect(attrs).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.system': 'claude-code', 'warrant.session.status': 'stopped' });
    expect(spansOf(other.uid)).toEqual([]);
    // the human-readable line, and a collector that cannot be reached fails the command
    const text = await runCli(['export', 'otel', '--endpoint', rx.url, '--session', String(s.id), ...storeArgs(h)]);
    expect(text.stdout).toContain(`Exported 1 span(s), 0 uncle link(s) and 0 human-message event(s) to ${rx.url}.`);
    const down = await runCli(['export', 'otel', '--endpoint', 'http://127.0.0.1:1', '--session', String(s.id), ...storeArgs(h)]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/OTLP export/);
  });

  it('the continuous exporter sends each ended session once, with its conversation id, and never an open one', async () => {
    const h = t();
    const stop = startContinuousOtelExport(h.ctx, rx.url, 20);
    try {
      const open = (await h.create(h.fleetKey, { title: 'still open', attach: true })).session;
      const a = await endedSession(h, 'ended a', 'conv-continuous-a');
      const b = await endedSession(h, 'ended b', 'conv-continuous-b');
      await until(() => spansOf(a.uid).length > 0 && spansOf(b.uid).length > 0, 'a and b exported');
      // later ticks run (c arrives after them) and export nothing twice
      const c = await endedSession(h, 'ended c', 'conv-continuous-c');
      await until(() => spansOf(c.uid).length > 0, 'c exported');
      for (const [s, conv] of [
        [a, 'conv-continuous-a'],
        [b, 'conv-continuous-b'],
        [c, 'conv-continuous-c'],
      ] as const) {
        expect(spansOf(s.uid), `${s.uid} exported once`).toHaveLength(1);
        expect(attributesOf(spansOf(s.uid)[0])['gen_ai.conversation.id']).toBe(conv);
      }
      expect(spansOf(open.uid)).toEqual([]);
    } finally {
      await stop();
    }
  });

  it('the continuous exporter: sessions that end in the same millisecond on either side of a tick are both exported', async () => {
    const clock = new ManualClock();
    const h = await openHarness(t().dialect, { clock });
    const stop = startContinuousOtelExport(h.ctx, rx.url, 20);
    try {
      const a = await endedSession(h, 'tie a', 'conv-tie-a');
      await until(() => spansOf(a.uid).length > 0, 'a exported');
      // the clock has not moved: b ends at the very timestamp the exporter last reached
      const b = await endedSession(h, 'tie b', 'conv-tie-b');
      clock.advance(1000);
      const c = await endedSession(h, 'after the tie', 'conv-tie-c');
      await until(() => spansOf(c.uid).length > 0, 'c exported');
      expect(spansOf(b.uid), 'b, which ended at the watermark, is exported too').toHaveLength(1);
      expect(spansOf(a.uid)).toHaveLength(1);
    } finally {
      await stop();
      await h.close();
    }
  });
});
