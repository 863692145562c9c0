import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { callTool, client, credentialIdOf, eventsOf, expectAttribution, fleet, human, mcpClient, onlyEvent, session, system } from '../helpers/events.js';

/**
 * docs/design/attribution.md "Events": one test per row of the event table that exists in this build, each
 * checking the actor and cause the table names (with their bases and the credential), plus
 * the cause rules under the table.
 */
describeEachDialect('event catalogue (docs/design/attribution.md)', (t) => {
  it('created: by a human token, actor and cause are the human, authenticated, with the credential', async () => {
    const h = t();
    const key = uniqueKey('alice');
    const { token } = await h.human(key, { displayName: 'Alice A' });
    const s = (await h.create(token, { title: 'by alice' })).session;
    const e = await onlyEvent(h, s.id, 'created');
    expectAttribution(e, {
      actor: human(key),
      actorBasis: 'authenticated',
      cause: human(key),
      causeBasis: 'authenticated',
      credentialId: await credentialIdOf(h, token),
    });
    expect(e.actor!.display_name).toBe('Alice A');
    expect(e.details).toMatchObject({ genesis: 'cli', via: 'rest', creator_basis: 'authenticated' });
  });

  it('created: by an integration client, the client is actor and cause', async () => {
    const h = t();
    const name = `sched-${uniqueKey('c')
      .replace(/[^a-z0-9]/g, '')
      .slice(-12)}`;
    const token = await h.clientKey(name);
    const s = (await h.create(token, { title: 'nightly', genesis: 'schedule' })).session;
    expectAttribution(await onlyEvent(h, s.id, 'created'), {
      actor: client(name),
      actorBasis: 'authenticated',
      cause: client(name),
      causeBasis: 'authenticated',
      credentialId: await credentialIdOf(h, token),
    });
    expect(s.cause).toMatchObject({ kind: 'client', ref: name });
  });

  it("created: by a bare fleet key, the act is the fleet's and the session's cause is the fleet — but no creator is recorded", async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'fleet made' })).session;
    expectAttribution(await onlyEvent(h, s.id, 'created'), {
      actor: fleet,
      actorBasis: 'authenticated',
      cause: fleet,
      causeBasis: 'authenticated',
      credentialId: await credentialIdOf(h, h.fleetKey),
    });
    expect(s.creator).toBeNull();
    expect(s.creator_basis).toBeNull();
    expect(s.cause).toMatchObject({ kind: 'fleet' });
  });

  it('created: by the fleet declaring acting_session_id, the declared session acts and the cause is its cause, declared', async () => {
    const h = t();
    const key = uniqueKey('bob');
    const { token } = await h.human(key);
    const router = (await h.create(token, { title: 'router' })).session;
    const s = (await h.create(h.fleetKey, { title: 'declared child', acting_session_id: router.id })).session;
    const e = await onlyEvent(h, s.id, 'created');
    expectAttribution(e, { actor: session(router.id), actorBasis: 'declared', cause: human(key), causeBasis: 'declared' });
    expect(e.details.acting_session_id).toBe(router.id);
  });

  it('created: by a session token, the session acts (authenticated) and the child inherits its cause', async () => {
    const h = t();
    const key = uniqueKey('carol');
    const { token } = await h.human(key);
    const parent = await h.create(token, { title: 'parent', attach: true });
    const child = (await h.create(parent.session_token, { title: 'child' })).session;
    const e = await onlyEvent(h, child.id, 'created');
    expectAttribution(e, {
      actor: session(parent.session.id),
      actorBasis: 'authenticated',
      cause: human(key),
      causeBasis: 'authenticated',
      credentialId: await credentialIdOf(h, parent.session_token),
    });
  });

  it('created: a replayed Idempotency-Key create records nothing — only the insert that made the row', async () => {
    const h = t();
    const headers = { 'idempotency-key': uniqueKey('idem') };
    const first = await h.create(h.fleetKey, { title: 'once' }, headers);
    const again = await h.create(h.fleetKey, { title: 'once' }, headers);
    expect(again.session.id).toBe(first.session.id);
    expect((await eventsOf(h, first.session.id)).map((e) => e.type)).toEqual(['created']);
  });

  it("attached and token_minted: the caller acts, for the session's cause; the mint names its recipient and credential", async () => {
    const h = t();
    const key = uniqueKey('dave');
    const { token } = await h.human(key);
    const s = (await h.create(token, { title: 'to attach' })).session;
    const res = await h.request('POST', `/api/v1/sessions/${s.id}/attach`, { token: h.fleetKey });
    expect(res.status).toBe(200);
    const fleetCredential = await credentialIdOf(h, h.fleetKey);
    const attached = await onlyEvent(h, s.id, 'attached');
    expectAttribution(attached, { actor: fleet, actorBasis: 'authenticated', cause: human(key), causeBasis: 'authenticated', credentialId: fleetCredential });
    expect(attached.details).toEqual({ activation: 1 });
    const minted = await onlyEvent(h, s.id, 'token_minted');
    expectAttribution(minted, { actor: fleet, actorBasis: 'authenticated', cause: human(key), causeBasis: 'authenticated', credentialId: fleetCredential });
    expect(minted.details.credential_id).toBe(await credentialIdOf(h, res.body.session_token));
    expect(minted.details.recipient).toMatchObject({ credential_id: fleetCredential, via: 'rest' });
    expect(minted.details.activation).toBe(1);
  });

  it("title_changed, starred, model_changed, unstarred: one event per field that really changed, old and new, by the caller for the caller's cause", async () => {
    const h = t();
    const key = uniqueKey('erin');
    const { token } = await h.human(key);
    const s = (await h.create(token, { title: 'before', model: 'm1' })).session;
    const r1 = await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token, body: { title: 'after', starred: true, model: 'm2' } });
    expect(r1.status).toBe(200);
    expect(r1.body.changed.sort()).toEqual(['model_changed', 'starred', 'title_changed']);
    const credentialId = await credentialIdOf(h, token);
    const attribution = { actor: human(key), actorBasis: 'authenticated', cause: human(key), causeBasis: 'authenticated', credentialId };
    const title = await onlyEvent(h, s.id, 'title_changed');
    expectAttribution(title, attribution);
    expect(title.details).toEqual({ old: 'before', new: 'after' });
    expect((await onlyEvent(h, s.id, 'starred')).details).toEqual({ old: false, new: true });
    expect((await onlyEvent(h, s.id, 'model_changed')).details).toEqual({ old: 'm1', new: 'm2' });

    // the same values again: no effect, nothing recorded
    const r2 = await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token, body: { title: 'after', starred: true, model: 'm2' } });
    expect(r2.body.changed).toEqual([]);
    expect(await eventsOf(h, s.id, ['title_changed', 'starred', 'model_changed'])).toHaveLength(3);

    await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token, body: { starred: false, title: 'after' } });
    const unstarred = await onlyEvent(h, s.id, 'unstarred');
    expectAttribution(unstarred, attribution);
    expect(unstarred.details).toEqual({ old: true, new: false });
    expect(await eventsOf(h, s.id, ['title_changed'])).toHaveLength(1);
  });

  it('PATCH by a session token on its descendant: the session acts for its own cause', async () => {
    const h = t();
    const key = uniqueKey('frank');
    const { token } = await h.human(key);
    const parent = await h.create(token, { title: 'parent', attach: true });
    const child = (await h.create(parent.session_token, { title: 'child' })).session;
    expect((await h.request('PATCH', `/api/v1/sessions/${child.id}`, { token: parent.session_token, body: { title: 'renamed by parent' } })).status).toBe(200);
    expectAttribution(await onlyEvent(h, child.id, 'title_changed'), {
      actor: session(parent.session.id),
      actorBasis: 'authenticated',
      cause: human(key),
      causeBasis: 'authenticated',
      credentialId: await credentialIdOf(h, parent.session_token),
    });
  });

  it('archived: each session of a cascade gets its own event, with the declared acting_session_id in its details', async () => {
    const h = t();
    const key = uniqueKey('gina');
    const { token } = await h.human(key);
    const actingSession = (await h.create(token, { title: 'orchestrator' })).session;
    const root = (await h.create(h.fleetKey, { title: 'root' })).session;
    const child = (await h.create(h.fleetKey, { title: 'child', parent_session_id: root.id })).session;
    const res = await h.request('POST', `/api/v1/sessions/${root.id}/archive`, { token: h.fleetKey, body: { acting_session_id: actingSession.id } });
    expect(res.body).toEqual({ archived: [child.id, root.id], skipped: [] });
    for (const id of [root.id, child.id]) {
      const e = await onlyEvent(h, id, 'archived');
      expectAttribution(e, {
        actor: session(actingSession.id),
        actorBasis: 'declared',
        cause: human(key),
        causeBasis: 'declared',
        credentialId: await credentialIdOf(h, h.fleetKey),
      });
      expect(e.details.acting_session_id).toBe(actingSession.id);
      expect(e.details.new).toBe('archived');
    }
    expect((await onlyEvent(h, child.id, 'archived')).details.cascade_from).toBe(root.id);
    // archiving an archived session has no effect
    await h.request('POST', `/api/v1/sessions/${root.id}/archive`, { token: h.fleetKey, body: {} });
    expect(await eventsOf(h, root.id, ['archived'])).toHaveLength(1);
  });

  it('archived: an acting_session_id that does not resolve leaves the fleet as actor and says so in the details', async () => {
    const h = t();
    const s = (await h.create(h.fleetKey, { title: 'x' })).session;
    await h.request('POST', `/api/v1/sessions/${s.id}/archive`, { token: h.fleetKey, body: { acting_session_id: 987654321 } });
    const e = await onlyEvent(h, s.id, 'archived');
    expectAttribution(e, { actor: fleet, actorBasis: 'authenticated', cause: fleet, causeBasis: 'authenticated' });
    expect(e.details).toMatchObject({ acting_session_id: null, acting_session_unresolved: '987654321' });
  });

  it('unarchived and stopped: the caller acts for its cause, only when the status changed', async () => {
    const h = t();
    const name = `ops-${uniqueKey('c')
      .replace(/[^a-z0-9]/g, '')
      .slice(-12)}`;
    const ops = await h.clientKey(name);
    const s = (await h.create(h.fleetKey, { title: 'x' })).session;
    const stop = await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: ops, body: {} });
    expect(stop.body.session.status).toBe('stopped');
    expectAttribution(await onlyEvent(h, s.id, 'stopped'), {
      actor: client(name),
      actorBasis: 'authenticated',
      cause: client(name),
      causeBasis: 'authenticated',
    });
    expect((await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: ops, body: {} })).body.changed).toBe(false);
    await h.request('POST', `/api/v1/sessions/${s.id}/archive`, { token: ops, body: {} });
    expect((await h.request('POST', `/api/v1/sessions/${s.id}/unarchive`, { token: ops, body: {} })).body.session.status).toBe('stopped');
    const e = await onlyEvent(h, s.id, 'unarchived');
    expectAttribution(e, { actor: client(name), actorBasis: 'authenticated', cause: client(name), causeBasis: 'authenticated' });
    expect(e.details).toMatchObject({ old: 'archived', new: 'stopped' });
    expect((await h.request('POST', `/api/v1/sessions/${s.id}/unarchive`, { token: ops, body: {} })).body.changed).toBe(false);
    expect(await eventsOf(h, s.id, ['unarchived', 'stopped'])).toHaveLength(2);
  });

  it('resumed: details carry reason "resume"; resuming a pending session records nothing', async () => {
    const h = t();
    const key = uniqueKey('hank');
    const { token } = await h.human(key);
    const s = (await h.create(token, { title: 'x' })).session;
    expect((await h.request('POST', `/api/v1/sessions/${s.id}/resume`, { token, body: {} })).body.changed).toBe(false);
    await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token, body: {} });
    const res = await h.request('POST', `/api/v1/sessions/${s.id}/resume`, { token, body: {} });
    expect(res.body.session.status).toBe('pending');
    const e = await onlyEvent(h, s.id, 'resumed');
    expectAttribution(e, { actor: human(key), actorBasis: 'authenticated', cause: human(key), causeBasis: 'authenticated' });
    expect(e.details).toMatchObject({ reason: 'resume', old: 'stopped', new: 'pending' });
  });

  it('stop_requested: only when the runtime is running work, once, with a control item for the runtime', async () => {
    const h = t();
    const key = uniqueKey('ivy');
    const { token } = await h.human(key);
    const s = await h.create(token, { title: 'busy', attach: true });
    const id = s.session.id;
    const res = await h.request('POST', `/api/v1/sessions/${id}/stop`, { token, body: {} });
    expect(res.body).toMatchObject({ changed: true, session: { status: 'running' } });
    const e = await onlyEvent(h, id, 'stop_requested');
    expectAttribution(e, {
      actor: human(key),
      actorBasis: 'authenticated',
      cause: human(key),
      causeBasis: 'authenticated',
      credentialId: await credentialIdOf(h, token),
    });
    expect((await onlyEvent(h, id, 'inbox_item_added')).details).toMatchObject({ kind: 'control', mode: 'interrupt' });
    // a second stop has no effect; the exit after it is a stop, unattributed runtime state
    expect((await h.request('POST', `/api/v1/sessions/${id}/stop`, { token, body: {} })).body.changed).toBe(false);
    await h.request('POST', `/api/v1/sessions/${id}/runtime`, { token: s.session_token, body: { state: 'exited', code: 1 } });
    expect((await h.request('GET', `/api/v1/sessions/${id}`, { token })).body.session.status).toBe('stopped');
    // a stopped session: no runtime, no request
    expect((await h.request('POST', `/api/v1/sessions/${id}/stop`, { token, body: {} })).body.changed).toBe(false);
    expect(await eventsOf(h, id, ['stop_requested', 'stopped'])).toHaveLength(1);
  });

  it("title_generated: the system names the session, for the session's cause", async () => {
    const h = t();
    const key = uniqueKey('jack');
    const { token } = await h.human(key);
    const s = (await h.create(token, { prompt: 'Fix the flaky login test\nmore words' })).session;
    expect(s.title).toBe('Fix the flaky login test');
    const e = await onlyEvent(h, s.id, 'title_generated');
    expectAttribution(e, { actor: system, cause: human(key), causeBasis: 'authenticated', credentialId: null });
    expect(e.details).toMatchObject({ new: 'Fix the flaky login test', from: 'prompt' });

    // a failed untitled session is named from its failure, also by the system
    const f = await h.create(h.fleetKey, { attach: true });
    await h.request('POST', `/api/v1/sessions/${f.session.id}/runtime`, { token: f.session_token, body: { state: 'error', reason: 'out of memory' } });
    const named = await onlyEvent(h, f.session.id, 'title_generated');
    expectAttribution(named, { actor: system, cause: fleet, credentialId: null });
    expect(named.details.from).toBe('failure_reason');
  });

  it('started, idle, exited, error: runtime state is unattributed — null actor, cause and credential — and not in the audit log', async () => {
    const h = t();
    const a = await h.create(h.fleetKey, { title: 'runs', attach: true });
    const report = (state: Record<string, unknown>) => h.request('POST', `/api/v1/sessions/${a.session.id}/runtime`, { token: a.session_token, body: state });
    await report({ state: 'idle' });
    await report({ state: 'started' });
    await report({ state: 'exited', code: 0 });
    const b = await h.create(h.fleetKey, { title: 'fails', attach: true });
    await h.request('POST', `/api/v1/sessions/${b.session.id}/runtime`, { token: b.session_token, body: { state: 'error', reason: 'boom' } });
    const runtime = [...(await eventsOf(h, a.session.id, ['idle', 'started', 'exited'])), ...(await eventsOf(h, b.session.id, ['error']))];
    expect(runtime.map((e) => e.type)).toEqual(['idle', 'started', 'exited', 'error']);
    for (const e of runtime) {
      expect(e.actor).toBeNull();
      expect(e.cause).toBeNull();
      expect(e.credential_id).toBeNull();
    }
    const entries = await h.store.kysely.selectFrom('audit_log').select('entry').execute();
    const mirrored = entries.map((r) => JSON.parse(r.entry)).filter((x) => x.kind === 'session_event' && [a.session.id, b.session.id].includes(x.session_id));
    expect(mirrored.map((x) => x.type).sort()).toEqual(['attached', 'attached', 'created', 'created', 'token_minted', 'token_minted']);
  });

  it("the session's cause is fixed at creation: later acts carry their own cause and never change it", async () => {
    const h = t();
    const key = uniqueKey('kim');
    const { token } = await h.human(key);
    const s = (await h.create(token, { title: 'kims' })).session;
    await h.request('PATCH', `/api/v1/sessions/${s.id}`, { token: h.fleetKey, body: { title: 'renamed by the fleet' } });
    expectAttribution(await onlyEvent(h, s.id, 'title_changed'), { actor: fleet, cause: fleet });
    const after = (await h.request('GET', `/api/v1/sessions/${s.id}`, { token })).body.session;
    expect(after.cause).toMatchObject({ kind: 'human', ref: key });
    expect(after.cause_basis).toBe('authenticated');
  });

  it('a cause is inherited down spawns with the weaker basis: delegated over MCP, then declared through a declared actor', async () => {
    const h = t();
    const key = uniqueKey('lee');
    const { token } = await h.human(key);
    const mcp = await mcpClient(h, token);
    try {
      const started = await callTool(mcp, 'start_session', { title: 'from a model holding the human token' });
      const s1 = started.session;
      expect(s1).toMatchObject({
        creator: { kind: 'human', ref: key },
        creator_basis: 'delegated',
        cause: { kind: 'human', ref: key },
        cause_basis: 'delegated',
      });
      expectAttribution(await onlyEvent(h, s1.id, 'created'), { actor: human(key), actorBasis: 'delegated', cause: human(key), causeBasis: 'delegated' });

      // the session runs and spawns with its own token: the spawn is authenticated, the cause stays delegated
      const attach = await h.request('POST', `/api/v1/sessions/${s1.id}/attach`, { token });
      const s2 = (await h.create(attach.body.session_token, { title: 'spawned' })).session;
      expect(s2).toMatchObject({
        creator: { kind: 'session', ref: String(s1.id) },
        creator_basis: 'authenticated',
        cause: { kind: 'human', ref: key },
        cause_basis: 'delegated',
      });

      // a fleet caller naming s2: declared
      const s3 = (await h.create(h.fleetKey, { title: 'declared', acting_session_id: s2.id })).session;
      expect(s3).toMatchObject({
        creator: { kind: 'session', ref: String(s2.id) },
        creator_basis: 'declared',
        cause: { kind: 'human', ref: key },
        cause_basis: 'declared',
      });
      // a fleet caller with only a parent hint inherits the parent's cause, declared
      const s4 = (await h.create(h.fleetKey, { title: 'hinted', parent_session_id: s1.id })).session;
      expect(s4).toMatchObject({ creator: null, cause: { kind: 'human', ref: key }, cause_basis: 'declared' });
    } finally {
      await mcp.close();
    }
  });

  it('a human token over MCP acts delegated: actor and cause are the human, basis delegated', async () => {
    const h = t();
    const key = uniqueKey('mo');
    const { token } = await h.human(key);
    const s = (await h.create(token, { title: 'x' })).session;
    const mcp = await mcpClient(h, token);
    try {
      const r = await callTool(mcp, 'action_session', { action: 'archive', session_id: s.id });
      expect(r.archived).toEqual([s.id]);
      await callTool(mcp, 'action_session', { action: 'unarchive', session_id: s.id });
    } finally {
      await mcp.close();
    }
    const credentialId = await credentialIdOf(h, token);
    for (const type of ['archived', 'unarchived']) {
      expectAttribution(await onlyEvent(h, s.id, type), {
        actor: human(key),
        actorBasis: 'delegated',
        cause: human(key),
        causeBasis: 'delegated',
        credentialId,
      });
    }
  });

  it("a fleet caller acting through a declared session: the cause is that session's cause, declared, never authenticated", async () => {
    const h = t();
    const key = uniqueKey('nia');
    const { token } = await h.human(key);
    const worker = (await h.create(token, { title: 'worker' })).session;
    await h.request('PATCH', `/api/v1/sessions/${worker.id}`, { token: h.fleetKey, body: { model: 'm9', acting_session_id: worker.id } });
    expectAttribution(await onlyEvent(h, worker.id, 'model_changed'), {
      actor: session(worker.id),
      actorBasis: 'declared',
      cause: human(key),
      causeBasis: 'declared',
    });
  });
  it('uncle and inbox events: a session a human started acts as itself, for that human — actor and cause both recorded, with their bases', async () => {
    const h = t();
    const key = uniqueKey('olga');
    const { token } = await h.human(key);
    // both sessions belong to the human; the router acts with its own token, so its cause (the human) differs from its actor
    const router = await h.create(token, { title: 'router', attach: true });
    const worker = await h.create(token, { title: 'worker', attach: true });
    const r = router.session.id as number;
    const w = worker.session.id as number;
    const asRouter = {
      actor: session(r),
      actorBasis: 'authenticated',
      cause: human(key),
      causeBasis: 'authenticated',
      credentialId: await credentialIdOf(h, router.session_token),
    };
    const asWorker = {
      actor: session(w),
      actorBasis: 'authenticated',
      cause: human(key),
      causeBasis: 'authenticated',
      credentialId: await credentialIdOf(h, worker.session_token),
    };
    const byType = async (id: number, type: string, pick: (e: any) => boolean = () => true) => {
      const found = (await eventsOf(h, id, [type])).filter(pick);
      expect(found, `one ${type} on #${id}`).toHaveLength(1);
      return found[0]!;
    };

    // follow-up: the router becomes an uncle of the worker (uncle_linked on both timelines), the item is added and sent
    const follow = await h.request('POST', `/api/v1/sessions/${w}/follow_up`, { token: router.session_token, body: { content: 'take a look' } });
    expect(follow.status).toBe(201);
    expect(follow.body.uncle_edge.outcome).toBe('written');
    for (const id of [w, r]) expectAttribution(await byType(id, 'uncle_linked'), asRouter);
    const followItem = follow.body.inbox_item.id;
    expectAttribution(await byType(w, 'inbox_item_added', (e) => e.details.inbox_item_id === followItem), asRouter);
    expectAttribution(await byType(r, 'inbox_item_sent', (e) => e.details.inbox_item_id === followItem), asRouter);

    // enqueue, then send_now: inbox_item_added / _sent, then inbox_item_promoted
    const queued = await h.request('POST', `/api/v1/sessions/${w}/enqueued_messages`, { token: router.session_token, body: { content: 'when idle' } });
    expect(queued.status).toBe(201);
    const q1 = queued.body.inbox_item.id;
    expectAttribution(await byType(w, 'inbox_item_added', (e) => e.details.inbox_item_id === q1), asRouter);
    expectAttribution(await byType(r, 'inbox_item_sent', (e) => e.details.inbox_item_id === q1), asRouter);
    expect((await h.request('POST', `/api/v1/sessions/${w}/enqueued_messages/${q1}/send_now`, { token: router.session_token, body: {} })).status).toBe(200);
    expectAttribution(await onlyEvent(h, w, 'inbox_item_promoted'), asRouter);

    // withdraw a second queued item
    const q2 = (await h.request('POST', `/api/v1/sessions/${w}/enqueued_messages`, { token: router.session_token, body: { content: 'never mind' } })).body
      .inbox_item.id;
    expect((await h.request('DELETE', `/api/v1/sessions/${w}/enqueued_messages/${q2}`, { token: router.session_token })).status).toBe(200);
    expectAttribution(await onlyEvent(h, w, 'inbox_item_withdrawn'), asRouter);

    // the worker follows the router up: the direct edge router → worker is inverted, by the worker for the human
    const back = await h.request('POST', `/api/v1/sessions/${r}/follow_up`, { token: worker.session_token, body: { content: 'done, over to you' } });
    expect(back.body.uncle_edge.outcome).toBe('inverted');
    for (const id of [w, r]) expectAttribution(await byType(id, 'uncle_inverted'), asWorker);

    // removal: a session token may not remove an edge, so the fleet removes it declaring the router — declared actor, declared cause
    const removed = await h.request('DELETE', `/api/v1/sessions/${r}/uncle_links/${w}?acting_session_id=${r}`, { token: h.fleetKey });
    expect(removed.status).toBe(204);
    for (const id of [w, r]) {
      expectAttribution(await byType(id, 'uncle_removed'), {
        actor: session(r),
        actorBasis: 'declared',
        cause: human(key),
        causeBasis: 'declared',
        credentialId: await credentialIdOf(h, h.fleetKey),
      });
    }
  });
});
