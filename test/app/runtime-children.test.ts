import { expect, it } from 'vitest';
import type { SeamPoint } from '../../src/app/context.js';
import { Barrier } from '../helpers/barrier.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { eventsOf, liveSession } from '../helpers/lineage.js';
import { append, child, records, runtimeSnapshot } from '../helpers/runtimes.js';

/**
 * Built-in subagents and nested agents are sessions (docs/design/agent-runtimes.md): created by
 * the parent's own token, reported for by it — and nothing else as them.
 */
describeEachDialect('runtime children: subagent and nested-agent sessions', (t, dialect) => {
  it('the parent token creates a running child: authenticated spawn edge, creator the parent, conversation bound, genesis inherited, no token', async () => {
    const h = t();
    const name = `sched${uniqueKey('c')
      .replace(/[^a-z0-9]/g, '')
      .slice(-10)}`;
    const client = await h.clientKey(name);
    const created = (await h.create(client, { title: 'nightly', genesis: 'schedule', provider: 'claude-code' })).session;
    const attached = await h.request('POST', `/api/v1/sessions/${created.id}/attach`, { token: h.fleetKey });
    const parent = { id: created.id as number, token: attached.body.session_token as string };

    const r = await child(h, parent.token, parent.id, { conversation_id: 'agent-a1', agent_root: 'Explore', transcript_path: '/t/agent-a1.jsonl' });
    expect(r.status).toBe(201);
    expect(r.body.created).toBe(true);
    expect(r.body.session_token).toBeUndefined();
    const c = r.body.session;
    expect(c).toMatchObject({
      status: 'running',
      parent_session_id: parent.id,
      parent_basis: 'authenticated',
      lineage_parent_id: parent.id,
      creator: { kind: 'session', ref: String(parent.id) },
      creator_basis: 'authenticated',
      agent_root: 'Explore',
      provider: 'claude-code',
      provider_conversation: 'agent-a1',
      genesis: 'schedule',
      scheduling_class: 'spot',
      runtime_parent_id: parent.id,
      runtime_origin: 'subagent',
      activation: 1,
    });
    expect(c.cause).toMatchObject({ kind: 'client', ref: name });
    const [createdEvent] = await eventsOf(h, c.id, 'created');
    expect(createdEvent).toMatchObject({
      actor: { kind: 'session', ref: String(parent.id), basis: 'authenticated' },
      details: { parent_basis: 'authenticated', runtime_origin: 'subagent', runtime_parent_id: parent.id },
    });
    const [attachedEvent] = await eventsOf(h, c.id, 'attached');
    expect(attachedEvent).toMatchObject({ actor: { kind: 'session', ref: String(parent.id) }, details: { activation: 1, runtime_parent_id: parent.id } });
    expect(await eventsOf(h, c.id, 'token_minted')).toEqual([]);
    const conv = (await h.request('GET', `/api/v1/sessions/${c.id}/conversations`, { token: h.fleetKey })).body.conversations;
    expect(conv).toEqual([expect.objectContaining({ conversation_id: 'agent-a1', transcript_path: '/t/agent-a1.jsonl', status: 'current' })]);
    // the child shows in its parent's tree like any spawned session
    const tree = await h.request('GET', `/api/v1/sessions?parent=${parent.id}`, { token: h.fleetKey });
    expect(tree.body.sessions.map((s: any) => s.id)).toEqual([c.id]);
  });

  it('the same (parent, provider, conversation) is the same child: running → nothing recorded; exited → attached again; another conversation or parent → another child', async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const first = await child(h, parent.token, parent.id, { conversation_id: 'agent-r' });
    const id = first.body.session.id;
    const before = await runtimeSnapshot(h);
    const again = await child(h, parent.token, parent.id, { conversation_id: 'agent-r' });
    expect([again.status, again.body.created, again.body.session.id]).toEqual([200, false, id]);
    expect(await runtimeSnapshot(h)).toEqual(before);

    expect((await h.request('POST', `/api/v1/sessions/${id}/runtime`, { token: parent.token, body: { state: 'exited', code: 0 } })).body.session.status).toBe(
      'stopped',
    );
    const resumed = await child(h, parent.token, parent.id, { conversation_id: 'agent-r' });
    expect([resumed.status, resumed.body.created, resumed.body.session.id, resumed.body.session.status, resumed.body.session.activation]).toEqual([
      200,
      false,
      id,
      'running',
      2,
    ]);
    expect((await eventsOf(h, id, 'attached')).map((e) => e.details.activation)).toEqual([1, 2]);

    const other = await child(h, parent.token, parent.id, { conversation_id: 'agent-s' });
    expect(other.status).toBe(201);
    expect(other.body.session.id).not.toBe(id);
    const parent2 = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const elsewhere = await child(h, parent2.token, parent2.id, { conversation_id: 'agent-r' });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.session.runtime_parent_id).toBe(parent2.id);

    // an archived child is not brought back silently
    await h.request('POST', `/api/v1/sessions/${id}/runtime`, { token: parent.token, body: { state: 'exited', code: 0 } });
    expect((await h.request('POST', `/api/v1/sessions/${id}/archive`, { token: h.fleetKey, body: {} })).status).toBe(200);
    const archived = await child(h, parent.token, parent.id, { conversation_id: 'agent-r' });
    expect([archived.status, archived.body.error]).toEqual([409, 'invalid-transition']);
  });

  it('two starts of the same subagent at once make exactly one child', async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    // PostgreSQL: both requests have read before either writes (SQLite's write transactions are serial anyway)
    const barrier = new Barrier(2);
    if (dialect === 'postgres') h.ctx.seams = { afterRead: async (point: SeamPoint) => (point === 'runtime-child' ? barrier.arrive() : undefined) };
    try {
      const [a, b] = await Promise.all([
        child(h, parent.token, parent.id, { conversation_id: 'agent-race' }),
        child(h, parent.token, parent.id, { conversation_id: 'agent-race' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 201]);
      expect(a.body.session.id).toBe(b.body.session.id);
    } finally {
      h.ctx.seams = undefined;
    }
    if (dialect === 'postgres') expect(barrier.arrived).toBe(2);
    const kids = await h.request('GET', `/api/v1/sessions?parent=${parent.id}`, { token: h.fleetKey });
    expect(kids.body.sessions).toHaveLength(1);
  });

  it("the parent token reports the child's runtime, conversation and transcript; the records say whose runtime reported", async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const id = (await child(h, parent.token, parent.id, { conversation_id: 'agent-x' })).body.session.id;
    expect((await h.request('POST', `/api/v1/sessions/${id}/runtime`, { token: parent.token, body: { state: 'idle' } })).body.session.status).toBe('idle');
    const [idle] = await eventsOf(h, id, 'idle');
    expect(idle.actor).toBeNull();
    expect(idle.details).toMatchObject({ runtime_parent_id: parent.id });
    const conv = await h.request('POST', `/api/v1/sessions/${id}/conversation`, {
      token: parent.token,
      body: { provider: 'claude-code', conversation_id: 'agent-x2' },
    });
    expect(conv.status).toBe(200);
    const [changed] = await eventsOf(h, id, 'conversation_changed');
    expect(changed).toMatchObject({
      actor: { kind: 'session', ref: String(parent.id), basis: 'authenticated' },
      details: { new: 'agent-x2', runtime_parent_id: parent.id },
    });
    const tr = await append(h, parent.token, id, { conversation_id: 'agent-x', offset: 0, lines: ['{"a":1}'] });
    expect(tr.body).toEqual({ appended: 1, next_offset: 8 });
    const [appended] = await eventsOf(h, id, 'transcript_appended');
    expect(appended).toMatchObject({
      actor: { kind: 'session', ref: String(parent.id), basis: 'authenticated' },
      details: { runtime_parent_id: parent.id, offset: 0, next_offset: 8 },
    });
    expect((await h.request('POST', `/api/v1/sessions/${id}/runtime`, { token: parent.token, body: { state: 'exited', code: 0 } })).body.session.status).toBe(
      'stopped',
    );
    // reporting for itself, the parent's records name no runtime parent
    await h.request('POST', `/api/v1/sessions/${parent.id}/runtime`, { token: parent.token, body: { state: 'idle' } });
    expect((await eventsOf(h, parent.id, 'idle'))[0].details.runtime_parent_id).toBeUndefined();
  });

  it('hostile: a session token cannot create a child of another session; fleet, humans and admins cannot create one at all', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const b = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const human = await h.human(uniqueKey());
    const admin = await h.human(uniqueKey('admin'), { admin: true });
    const before = await runtimeSnapshot(h);
    for (const token of [a.token, h.fleetKey, human.token, admin.token]) {
      const r = await child(h, token, b.id, { conversation_id: 'agent-forged' });
      expect([r.status, r.body.error], token.slice(0, 6)).toEqual([403, 'forbidden']);
    }
    expect(await runtimeSnapshot(h)).toEqual(before);
  });

  it('hostile: the parent token cannot report for a child it did not create this way, nor act as its runtime child otherwise', async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    // an ordinary spawn child, made with the parent's token (a descendant, not a runtime child)
    const spawned = (await h.create(parent.token, { title: 'spawned', provider: 'claude-code' })).session.id;
    const viaFleet = await h.request('POST', `/api/v1/sessions/${spawned}/attach`, { token: h.fleetKey });
    expect(viaFleet.status).toBe(200);
    const runtimeChild = (await child(h, parent.token, parent.id, { conversation_id: 'agent-own' })).body.session.id;
    const before = await runtimeSnapshot(h);
    const reports: [string, unknown][] = [
      ['runtime', { state: 'idle' }],
      ['conversation', { provider: 'claude-code', conversation_id: 'forged' }],
      ['transcript', { provider: 'claude-code', conversation_id: 'forged', offset: 0, lines: ['{"forged":true}'] }],
    ];
    for (const [path, body] of reports) {
      const r = await h.request('POST', `/api/v1/sessions/${spawned}/${path}`, { token: parent.token, body });
      expect([r.status, r.body.error], path).toEqual([403, 'forbidden']);
    }
    // the runtime child: reports yes (above), acting as its runtime no
    for (const [method, path, body] of [
      ['POST', 'inbox/lease', {}],
      ['POST', 'inbox/ack', { ids: [] }],
      ['POST', 'attach', undefined],
      ['DELETE', '', undefined],
    ] as const) {
      const r = await h.request(method, `/api/v1/sessions/${runtimeChild}${path ? `/${path}` : ''}`, { token: parent.token, ...(body ? { body } : {}) });
      expect([r.status, r.body.error], `${method} ${path}`).toEqual([403, 'forbidden']);
    }
    expect(await runtimeSnapshot(h)).toEqual(before);
  });

  it("hostile: a child's own token (from an attach) cannot create children of its parent or report for its parent or a sibling", async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const first = (await child(h, parent.token, parent.id, { conversation_id: 'agent-1' })).body.session.id;
    const sibling = (await child(h, parent.token, parent.id, { conversation_id: 'agent-2' })).body.session.id;
    await h.request('POST', `/api/v1/sessions/${first}/runtime`, { token: parent.token, body: { state: 'exited', code: 0 } });
    const childToken = (await h.request('POST', `/api/v1/sessions/${first}/attach`, { token: h.fleetKey })).body.session_token as string;
    const before = await runtimeSnapshot(h);
    expect((await child(h, childToken, parent.id, { conversation_id: 'agent-3' })).body.error).toBe('forbidden');
    for (const target of [parent.id, sibling]) {
      expect((await h.request('POST', `/api/v1/sessions/${target}/runtime`, { token: childToken, body: { state: 'idle' } })).body.error).toBe('forbidden');
      expect((await append(h, childToken, target, { offset: 0, lines: ['{"forged":true}'] })).body.error).toBe('forbidden');
    }
    expect(await runtimeSnapshot(h)).toEqual(before);
    // its own runtime it reports as usual
    expect((await h.request('POST', `/api/v1/sessions/${first}/runtime`, { token: childToken, body: { state: 'idle' } })).status).toBe(200);
  });

  it('a superseded parent token reports nothing for its children', async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const id = (await child(h, parent.token, parent.id, { conversation_id: 'agent-old' })).body.session.id;
    await h.request('POST', `/api/v1/sessions/${parent.id}/runtime`, { token: parent.token, body: { state: 'exited', code: 0 } });
    expect((await h.request('POST', `/api/v1/sessions/${parent.id}/attach`, { token: h.fleetKey })).status).toBe(200);
    const r = await h.request('POST', `/api/v1/sessions/${id}/runtime`, { token: parent.token, body: { state: 'idle' } });
    expect([r.status, r.body.error]).toEqual([403, 'token-superseded']);
    expect((await child(h, parent.token, parent.id, { conversation_id: 'agent-new' })).body.error).toBe('token-superseded');
    expect(await records(h, id)).toEqual([]);
  });

  it("a subagent runs on its parent's provider; a nested agent may be another CLI; input is checked", async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey, { provider: 'codex' });
    const before = await runtimeSnapshot(h);
    const wrong = await child(h, parent.token, parent.id, { provider: 'claude-code', conversation_id: 'agent-p' });
    expect([wrong.status, wrong.body.error]).toEqual([409, 'provider-mismatch']);
    for (const body of [
      { origin: 'teammate' },
      { conversation_id: '' },
      { conversation_id: 'a\nb' },
      { provider: 'x'.repeat(65) },
      { agent_root: 'y'.repeat(65) },
      { surprise: 1 },
    ]) {
      const r = await child(h, parent.token, parent.id, body);
      expect([r.status, r.body.error], JSON.stringify(body)).toEqual([400, 'invalid-request']);
    }
    expect(await runtimeSnapshot(h)).toEqual(before);
    const nested = await child(h, parent.token, parent.id, { origin: 'nested-agent', provider: 'claude-code', conversation_id: 'nested-session-1' });
    expect(nested.status).toBe(201);
    expect(nested.body.session).toMatchObject({ runtime_origin: 'nested-agent', provider: 'claude-code', agent_root: null });
  });

  it('a child that exits at once (1 ms later) is recorded in order', async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const id = (await child(h, parent.token, parent.id, { conversation_id: 'agent-fast' })).body.session.id;
    const exited = await h.request('POST', `/api/v1/sessions/${id}/runtime`, { token: parent.token, body: { state: 'exited', code: 0 } });
    expect(exited.body.session.status).toBe('stopped');
    expect((await eventsOf(h, id)).map((e) => e.type)).toEqual(['created', 'attached', 'exited']);
  });
});

describeEachDialect('runtime children when a session is deleted', (t) => {
  it("deleting the parent clears the child's runtime parent with its spawn parent; deleting the child takes its transcript and positions", async () => {
    const h = t();
    const admin = await h.human(uniqueKey('admin'), { admin: true });
    const parent = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const kept = (await child(h, parent.token, parent.id, { conversation_id: 'agent-kept' })).body.session.id;
    const gone = (await child(h, parent.token, parent.id, { conversation_id: 'agent-gone' })).body.session.id;
    expect((await append(h, parent.token, gone, { conversation_id: 'agent-gone', offset: 0, lines: ['{}'] })).status).toBe(200);
    expect((await h.request('DELETE', `/api/v1/sessions/${gone}`, { token: admin.token })).status).toBe(200);
    const left = async (table: 'session_transcripts' | 'transcript_positions') =>
      Number(
        (
          await h.store.kysely
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('session_id', '=', gone)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect([await left('session_transcripts'), await left('transcript_positions')]).toEqual([0, 0]);
    const deletion = await h.request('DELETE', `/api/v1/sessions/${parent.id}`, { token: admin.token });
    expect(deletion.status).toBe(200);
    expect(deletion.body.deletion.affected).toEqual([expect.objectContaining({ kind: 'child', id: kept, action: 'parent_cleared' })]);
    const after = (await h.request('GET', `/api/v1/sessions/${kept}`, { token: h.fleetKey })).body.session;
    expect(after).toMatchObject({ parent_session_id: null, runtime_parent_id: null, runtime_origin: 'subagent' });
  });
});
