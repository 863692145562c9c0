import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { liveSession } from '../helpers/lineage.js';

/**
 * docs/design/quality.md "Bad input": random and malformed bodies on the message and conversation routes get
 * a 4xx with a token, never a 500 — and a refused send writes nothing.
 */
describeEachDialect('agent-message and conversation routes under a fuzz (property)', (t) => {
  it('never answers 500; every error carries a token', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const b = await liveSession(h, h.fleetKey);
    const admin = await h.human(uniqueKey('admin'), { admin: true });
    const value = fc.oneof(
      fc.jsonValue(),
      fc.string({ maxLength: 80 }),
      fc.integer(),
      fc.double(),
      fc.constant(b.id),
      fc.constant(`#${b.id}`),
      fc.constant(null),
      fc.constant('\u0000'),
      fc.constant('\ud800'),
      fc.constant(`msg_${'a'.repeat(32)}`),
      fc.constant('x'.repeat(70_000)),
    );
    const messageBody = fc.record({ to: value, payload: value, ref: value, ttl: value, reply_to: value, acting_session_id: value }, { requiredKeys: [] });
    const conversationBody = fc.record({ provider: value, conversation_id: value, transcript_path: value, session_id: value }, { requiredKeys: [] });
    const raw = fc.oneof(fc.string({ maxLength: 100 }), fc.constant('{'), fc.constant('[]'), fc.constant('null'), fc.constant('"text"'));
    const calls = fc.oneof(
      fc.record({
        path: fc.constant('/api/v1/messages'),
        token: fc.constantFrom(a.token, h.fleetKey),
        body: fc.oneof(
          messageBody.map((o) => JSON.stringify(o)),
          raw,
        ),
      }),
      fc.record({
        path: fc.constant(`/api/v1/sessions/${a.id}/conversation`),
        token: fc.constantFrom(a.token, h.fleetKey),
        body: fc.oneof(
          conversationBody.map((o) => JSON.stringify(o)),
          raw,
        ),
      }),
      fc.record({
        path: fc.constant('/api/v1/conversations/estimated'),
        token: fc.constant(admin.token),
        body: fc.oneof(
          conversationBody.map((o) => JSON.stringify(o)),
          raw,
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(calls, fc.string({ maxLength: 60 }), async (call, id) => {
        const r = await h.request('POST', call.path, { token: call.token, raw: call.body });
        expect(r.status, `${call.path} ${call.body.slice(0, 200)}`).toBeLessThan(500);
        if (r.status >= 400) expect(typeof r.body?.error, r.text).toBe('string');
        const g = await h.request('GET', `/api/v1/messages/${encodeURIComponent(id)}`, { token: a.token });
        expect(g.status).toBeLessThan(500);
      }),
      { numRuns: 200 },
    );
  });
});
