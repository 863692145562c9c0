import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { callTool, mcpClient, onlyEvent } from '../helpers/events.js';

/** docs/design/attribution.md "Creator provenance": one test per row of the creator table, on every surface that shows it. */
describeEachDialect('creator provenance (docs/design/attribution.md)', (t) => {
  it('authenticated — a session token: the creating session, never the created one', async () => {
    const h = t();
    const parent = await h.create(h.fleetKey, { title: 'parent', attach: true });
    const r = await h.create(parent.session_token, { title: 'child' });
    expect(r.session).toMatchObject({ creator: { kind: 'session', ref: String(parent.session.id), display_name: 'parent' }, creator_basis: 'authenticated' });
    expect(r.session.creator.ref).not.toBe(String(r.session.id));
    expect(r.creator_resolution).toEqual({ requested: null, resolved_id: parent.session.id, basis: 'authenticated', dropped: null });
  });

  it('authenticated — a human token outside MCP: the human', async () => {
    const h = t();
    const key = uniqueKey('ann');
    const { token } = await h.human(key, { displayName: 'Ann B' });
    const r = await h.create(token, { title: 'x' });
    expect(r.session).toMatchObject({ creator: { kind: 'human', ref: key, display_name: 'Ann B' }, creator_basis: 'authenticated' });
    expect(r.creator_resolution).toEqual({ requested: null, resolved_id: null, basis: 'authenticated', dropped: null });
  });

  it('authenticated — an integration key: the client', async () => {
    const h = t();
    const name = `gh${Date.now().toString(36)}`;
    const r = await h.create(await h.clientKey(name), { title: 'from github', genesis: 'github' });
    expect(r.session).toMatchObject({ creator: { kind: 'client', ref: name }, creator_basis: 'authenticated', genesis: 'github', scheduling_class: 'spot' });
  });

  it('delegated — a human token over MCP: the human, delegated', async () => {
    const h = t();
    const key = uniqueKey('ben');
    const { token } = await h.human(key);
    const mcp = await mcpClient(h, token);
    try {
      const r = await callTool(mcp, 'start_session', { title: 'by a model' });
      expect(r.session).toMatchObject({ creator: { kind: 'human', ref: key }, creator_basis: 'delegated' });
      expect(r.creator_resolution).toMatchObject({ basis: 'delegated', dropped: null });
    } finally {
      await mcp.close();
    }
  });

  it('declared — the fleet naming acting_session_id: the declared session', async () => {
    const h = t();
    const router = (await h.create(h.fleetKey, { title: 'router' })).session;
    const r = await h.create(h.fleetKey, { title: 'worker', acting_session_id: router.uid });
    expect(r.session).toMatchObject({ creator: { kind: 'session', ref: String(router.id) }, creator_basis: 'declared' });
    expect(r.creator_resolution).toEqual({ requested: router.uid, resolved_id: router.id, basis: 'declared', dropped: null });
    // declaring a creator is not declaring a parent
    expect(r.session.parent_session_id).toBeNull();
  });

  it('declared but unresolvable: dropped and reported in creator_resolution, never failing the create', async () => {
    const h = t();
    for (const requested of ['999999999', 'uid:ffffffff', 'not a ref at all']) {
      const res = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'still created', acting_session_id: requested } });
      expect(res.status).toBe(201);
      expect(res.body.session).toMatchObject({ creator: null, creator_basis: null, cause: { kind: 'fleet' } });
      expect(res.body.creator_resolution).toEqual({ requested, resolved_id: null, basis: null, dropped: 'not-found' });
      const created = await onlyEvent(h, res.body.session.id, 'created');
      expect(created.actor).toMatchObject({ kind: 'fleet', basis: 'authenticated' });
      expect(created.details).toMatchObject({ acting_session_id: null, acting_session_unresolved: requested });
    }
  });

  it('null — a bare fleet key: no creator, which does not mean a human created it', async () => {
    const h = t();
    const r = await h.create(h.fleetKey, { title: 'anonymous machine' });
    expect(r.session).toMatchObject({ creator: null, creator_basis: null });
    expect(r.creator_resolution).toEqual({ requested: null, resolved_id: null, basis: null, dropped: null });
    // a parent hint proves a parent claim, not a creator
    const child = await h.create(h.fleetKey, { title: 'hinted', parent_session_id: r.session.id });
    expect(child.session).toMatchObject({ creator: null, parent_basis: 'declared' });
  });

  it('creator and cause are on the REST payload and in MCP get_session (text and data)', async () => {
    const h = t();
    const key = uniqueKey('cy');
    const { token } = await h.human(key, { displayName: 'Cy D' });
    const router = (await h.create(token, { title: 'router' })).session;
    const worker = (await h.create(h.fleetKey, { title: 'worker', acting_session_id: router.id })).session;
    const bare = (await h.create(h.fleetKey, { title: 'bare' })).session;
    const rest = (await h.request('GET', `/api/v1/sessions/${worker.id}`, { token: h.fleetKey })).body.session;
    expect(rest).toMatchObject({
      creator: { kind: 'session', ref: String(router.id) },
      creator_basis: 'declared',
      cause: { kind: 'human', ref: key },
      cause_basis: 'declared',
    });
    const mcp = await mcpClient(h, h.fleetKey);
    try {
      const r = await mcp.callTool({ name: 'get_session', arguments: { session_id: worker.id } });
      const text = (r.content as { type: string; text: string }[])[0]!.text;
      expect(text).toContain(`- creator: session #${router.id} — declared`);
      expect(text).toContain(`- cause: Cy D (${key}) — declared`);
      expect((r.structuredContent as { session: unknown }).session).toMatchObject({ creator_basis: 'declared', cause_basis: 'declared' });
      const b = await mcp.callTool({ name: 'get_session', arguments: { session_id: bare.id } });
      expect((b.content as { text: string }[])[0]!.text).toContain('- creator: none recorded (no evidence)');
    } finally {
      await mcp.close();
    }
  });
});
