import fc from 'fast-check';
import { expect, it } from 'vitest';
import { findInputProblem, MAX_INPUT_DEPTH } from '../../src/core/wire-input.js';
import { describeEachDialect, type Harness } from '../helpers/harness.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';

/**
 * No 500 for any input (docs/api.md "Input limits"): lone surrogates, deep nesting and NUL,
 * escaped or not, are refused at the input boundary with 400 invalid-request naming the field,
 * the same on both backends — before any renderer, digest or store sees them.
 */

const LONE = 'title \uD800 half a pair';
const nested = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

function expectRefusal(res: { status: number; body: any }, field: string): void {
  expect([res.status, res.body?.error, res.body?.field]).toEqual([400, 'invalid-request', field]);
  expect(String(res.body.message).startsWith(`${field}: `)).toBe(true);
}

async function attached(h: Harness): Promise<{ id: number; token: string }> {
  const created = await h.create(h.fleetKey, { title: 'target', attach: true });
  return { id: created.session.id, token: created.session_token };
}

describeEachDialect('hostile input', (t) => {
  it('a lone surrogate in title or model: 400 naming the field, on create and on PATCH, and nothing changes', async () => {
    const h = t();
    expectRefusal(await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: LONE } }), 'title');
    expectRefusal(await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { model: 'model-\uDC00' } }), 'model');
    const s = await attached(h);
    for (const token of [s.token, h.fleetKey]) {
      expectRefusal(await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token, body: { title: LONE } }), 'title');
      expectRefusal(await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token, body: { model: '\uDBFF' } }), 'model');
    }
    const after = await h.request('GET', `/api/v1/sessions/${s.id}`, { token: h.fleetKey });
    expect(after.status).toBe(200);
    expect(after.body.session?.title ?? after.body.title).toBe('target');
    // a well-formed pair (an emoji) is text like any other
    expect((await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token: s.token, body: { title: 'ok \uD83D\uDE00' } })).status).toBe(200);
  });

  it('custom_metadata nested 1,000 and 5,000 deep: 400 naming custom_metadata; at the limit it is stored', async () => {
    const h = t();
    for (const depth of [1_000, 5_000]) {
      expectRefusal(
        await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, raw: `{"title":"deep","custom_metadata":${nested(depth)}}` }),
        'custom_metadata',
      );
    }
    // the body is level 1, so custom_metadata may hold 31 levels of objects
    const deepest = MAX_INPUT_DEPTH - 1;
    const ok = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, raw: `{"title":"deep enough","custom_metadata":${nested(deepest)}}` });
    expect(ok.status).toBe(201);
    expectRefusal(
      await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, raw: `{"title":"one too deep","custom_metadata":${nested(deepest + 1)}}` }),
      'custom_metadata',
    );
  });

  it('an escaped NUL in custom_metadata, a raw one in a title and one in a key: 400 naming the field', async () => {
    const h = t();
    expectRefusal(
      await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, raw: '{"title":"nul","custom_metadata":{"note":"a\\u0000b"}}' }),
      'custom_metadata.note',
    );
    expectRefusal(await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'a\u0000b' } }), 'title');
    expectRefusal(await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, raw: '{"custom_metadata":{"k\\u0000":1}}' }), 'custom_metadata');
    expectRefusal(await h.request('GET', '/api/v1/sessions?q=a%00b', { token: h.fleetKey }), 'q');
  });

  it('MCP tool arguments pass the same check', async () => {
    const h = t();
    const client = await mcpClient(h, h.fleetKey);
    try {
      const surrogate = await callTool(client, 'start_session', { title: LONE });
      expect(surrogate.isError).toBe(true);
      expect(surrogate.data).toMatchObject({ error: 'invalid-request', field: 'title' });
      const nul = await callTool(client, 'start_session', { title: 'x', custom_metadata: { note: 'a\u0000b' } });
      expect(nul.data).toMatchObject({ error: 'invalid-request', field: 'custom_metadata.note' });
      let deep: Record<string, unknown> = { leaf: 1 };
      for (let i = 0; i < 1_000; i++) deep = { a: deep };
      const nestedCall = await callTool(client, 'start_session', { title: 'x', custom_metadata: deep });
      expect(nestedCall.data).toMatchObject({ error: 'invalid-request', field: 'custom_metadata' });
    } finally {
      await client.close();
    }
  });

  it('a fuzz over the string fields of create and PATCH finds no 500, and refuses exactly the ill-formed inputs', async () => {
    const h = t();
    const s = await attached(h);
    const hostileText = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc
        .tuple(fc.string({ maxLength: 10 }), fc.constantFrom('\u0000', '\uD800', '\uDFFF', '\uDBFF\uDBFF', '\uD83D\uDE00'), fc.string({ maxLength: 10 }))
        .map(([a, b, c]) => a + b + c),
    );
    const metadata = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, hostileText, fc.integer(), tie('object'), fc.array(tie('value'), { maxLength: 3 })),
      object: fc.dictionary(hostileText, tie('value'), { maxKeys: 3 }),
    })).object;
    const createBody = fc.record(
      {
        title: hostileText,
        model: hostileText,
        prompt: hostileText,
        agent_root: hostileText,
        provider: hostileText,
        owner: hostileText,
        custom_metadata: metadata,
      },
      { requiredKeys: [] },
    );
    const patchBody = fc.record({ title: hostileText, model: hostileText }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          createBody.map((b) => ['create', b] as const),
          patchBody.map((b) => ['patch', b] as const),
        ),
        async ([kind, body]) => {
          const res =
            kind === 'create'
              ? await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body })
              : await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token: s.token, body });
          expect(res.status).toBeLessThan(500);
          const problem = findInputProblem(body);
          if (problem) expectRefusal(res, problem.field);
          else expect(res.body?.error === 'invalid-request' && /NUL|surrogate|nested/.test(res.body.message)).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });
});
