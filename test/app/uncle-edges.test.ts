import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { breakUncleInserts, captureLogs, eventsOf, findCycle, followUp, insertSpawnChain, liveSession, uncleRows } from '../helpers/lineage.js';

describeEachDialect('uncle edges: the seven rules of docs/design/lineage.md through follow-ups', (t) => {
  it('written: A → B with its source, basis and recorder; logged on both timelines and in the audit log', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const r = await followUp(h, a.token, b.id);
    expect(r.status).toBe(201);
    expect(r.body.uncle_edge).toEqual({ outcome: 'written', acting_session_id: a.id, session_id: b.id, basis: 'authenticated', source: 'rest.follow_up' });
    expect(await uncleRows(h, [a.id, b.id])).toEqual([{ junior: b.id, uncle: a.id, basis: 'authenticated', source: 'rest.follow_up' }]);
    for (const [id, role] of [
      [b.id, 'junior'],
      [a.id, 'uncle'],
    ] as const) {
      const [e] = await eventsOf(h, id, 'uncle_linked');
      expect(e.details).toMatchObject({ session_id: b.id, uncle_session_id: a.id, source: 'rest.follow_up', basis: 'authenticated', role });
      expect(e.actor).toMatchObject({ kind: 'session', ref: String(a.id), basis: 'authenticated' });
    }
    const audit = await h.store.kysely.selectFrom('audit_log').select('entry').execute();
    // audit entries carry a keyed digest of the details; the entry names its session
    const linked = audit.map((x) => JSON.parse(x.entry)).filter((x) => x.type === 'uncle_linked' && [a.id, b.id].includes(x.session_id));
    expect(linked.map((x) => x.session_id).sort()).toEqual([a.id, b.id].sort());
  });

  it('noop-self and noop-already-senior record nothing', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const child = await liveSession(h, a.token); // a spawned it: a already reaches it going down
    expect((await followUp(h, a.token, a.id)).body.uncle_edge.outcome).toBe('noop-self');
    expect((await followUp(h, a.token, child.id)).body.uncle_edge.outcome).toBe('noop-already-senior');
    expect(await uncleRows(h, [a.id, child.id])).toEqual([]);
    expect(await eventsOf(h, child.id, 'uncle_linked')).toEqual([]);
  });

  it('a child following up its parent (or grandparent) writes nothing and leaves parent_session_id untouched', async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey);
    const child = await liveSession(h, parent.token);
    const grandchild = await liveSession(h, child.token);
    const r = await followUp(h, child.token, parent.id);
    expect(r.status).toBe(201);
    expect(r.body.uncle_edge.outcome).toBe('noop-spawn-ancestor');
    expect((await followUp(h, grandchild.token, parent.id)).body.uncle_edge.outcome).toBe('noop-spawn-ancestor');
    expect(await uncleRows(h, [parent.id, child.id, grandchild.id])).toEqual([]);
    const after = await h.request('GET', `/api/v1/sessions/${child.id}`, { token: h.fleetKey });
    expect(after.body.session).toMatchObject({ parent_session_id: parent.id, parent_basis: 'authenticated' });
    expect(await eventsOf(h, parent.id, 'parent_changed')).toEqual([]);
    // the follow-up itself was delivered
    expect(r.body.inbox_item).toMatchObject({ session_id: parent.id, kind: 'follow_up', state: 'pending' });
  });

  it('refused-senior-chain: a senior two hops away (not on the spawn chain) is refused', async () => {
    const h = t();
    const top = await liveSession(h, h.fleetKey);
    const middle = await liveSession(h, h.fleetKey);
    const low = await liveSession(h, middle.token); // middle → low (spawn)
    expect((await followUp(h, top.token, middle.id)).body.uncle_edge.outcome).toBe('written'); // top → middle (uncle)
    // low queues top: top reaches low over top → middle → low; only a direct edge inverts
    const r = await followUp(h, low.token, top.id);
    expect(r.body.uncle_edge.outcome).toBe('refused-senior-chain');
    expect(await uncleRows(h, [low.id])).toEqual([]);
  });

  it('inverted: B → A replaces A → B in one transaction, logged on both timelines with the replaced edge', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    expect((await followUp(h, a.token, b.id)).body.uncle_edge.outcome).toBe('written');
    const r = await followUp(h, b.token, a.id);
    expect(r.body.uncle_edge).toMatchObject({ outcome: 'inverted', acting_session_id: b.id, session_id: a.id, basis: 'authenticated' });
    expect(await uncleRows(h, [a.id, b.id])).toEqual([{ junior: a.id, uncle: b.id, basis: 'authenticated', source: 'rest.follow_up' }]);
    for (const id of [a.id, b.id]) {
      const [e] = await eventsOf(h, id, 'uncle_inverted');
      expect(e.details).toMatchObject({
        session_id: a.id,
        uncle_session_id: b.id,
        replaced: { session_id: b.id, uncle_session_id: a.id, basis: 'authenticated' },
      });
    }
  });

  it('the four individually legal calls that would build A → B → X → A leave no cycle (refused-inversion-cycle, rolled back)', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const x = await liveSession(h, h.fleetKey);
    expect((await followUp(h, b.token, a.id)).body.uncle_edge.outcome).toBe('written'); // B → A
    expect((await followUp(h, x.token, a.id)).body.uncle_edge.outcome).toBe('written'); // X → A
    expect((await followUp(h, b.token, x.id)).body.uncle_edge.outcome).toBe('written'); // B → X
    const fourth = await followUp(h, a.token, b.id); // inverting B → A would close A → B → X → A
    expect(fourth.status).toBe(201);
    expect(fourth.body.uncle_edge.outcome).toBe('refused-inversion-cycle');
    expect(await uncleRows(h, [a.id, b.id, x.id])).toEqual(
      [
        { junior: a.id, uncle: b.id, basis: 'authenticated', source: 'rest.follow_up' },
        { junior: a.id, uncle: x.id, basis: 'authenticated', source: 'rest.follow_up' },
        { junior: x.id, uncle: b.id, basis: 'authenticated', source: 'rest.follow_up' },
      ].sort((p, q) => p.junior - q.junior || p.uncle - q.uncle),
    );
    expect(await eventsOf(h, a.id, 'uncle_inverted')).toEqual([]);
    expect(await findCycle(h)).toBeNull();
  });

  it('refused-basis: a declared actor cannot invert an authenticated edge; a declared edge it can', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    expect((await followUp(h, b.token, a.id)).body.uncle_edge.outcome).toBe('written'); // B → A, authenticated
    const claim = await followUp(h, h.fleetKey, b.id, { acting_session_id: a.id });
    expect(claim.status).toBe(201);
    expect(claim.body.uncle_edge).toMatchObject({ outcome: 'refused-basis', basis: 'declared' });
    expect(await uncleRows(h, [a.id, b.id])).toEqual([{ junior: a.id, uncle: b.id, basis: 'authenticated', source: 'rest.follow_up' }]);

    const c = await liveSession(h, h.fleetKey);
    const d = await liveSession(h, h.fleetKey);
    expect((await followUp(h, h.fleetKey, c.id, { acting_session_id: d.id })).body.uncle_edge).toMatchObject({ outcome: 'written', basis: 'declared' });
    expect((await followUp(h, h.fleetKey, d.id, { acting_session_id: c.id })).body.uncle_edge.outcome).toBe('inverted');
    expect(await uncleRows(h, [c.id, d.id])).toEqual([{ junior: d.id, uncle: c.id, basis: 'declared', source: 'rest.follow_up' }]);
  });

  it('the 5,000-session budget: refused-budget for an uncle edge, parent-cycle-unproven for a parent correction', async () => {
    const h = t();
    const admin = await h.human(uniqueKey('admin'), { admin: true });
    const chain = await insertSpawnChain(h, 5003);
    const bottom = chain[chain.length - 1]!;
    const other = await liveSession(h, h.fleetKey);
    // bottom queues other: rule 5 must walk bottom's 5,002 ancestors to prove other is not among them
    const r = await followUp(h, h.fleetKey, other.id, { acting_session_id: bottom });
    expect(r.status).toBe(201);
    expect(r.body.uncle_edge).toMatchObject({ outcome: 'refused-budget', acting_session_id: bottom, basis: 'declared' });
    expect(await uncleRows(h, [other.id])).toEqual([]);
    // bottom becoming other's parent needs the same unprovable search
    const patch = await h.request('PATCH', `/api/v1/sessions/${other.id}`, { token: admin.token, body: { parent_session_id: bottom } });
    expect(patch.status).toBe(409);
    expect(patch.body.error).toBe('parent-cycle-unproven');
    expect((await h.request('GET', `/api/v1/sessions/${other.id}`, { token: h.fleetKey })).body.session.parent_session_id).toBeNull();
    // the other way round needs no long proof: other's ancestry is empty
    expect((await followUp(h, other.token, bottom)).body.uncle_edge.outcome).toBe('written');
  });

  it('record-failed: recording that throws is logged, reported, and never undoes the delivery', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const logs = captureLogs(h);
    const repair = await breakUncleInserts(h);
    try {
      const r = await followUp(h, a.token, b.id, { content: 'still delivered' });
      expect(r.status).toBe(201);
      expect(r.body.uncle_edge.outcome).toBe('record-failed');
      expect(r.body.inbox_item).toMatchObject({ session_id: b.id, content: 'still delivered', state: 'pending' });
    } finally {
      await repair();
      logs.restore();
    }
    const inbox = await h.request('GET', `/api/v1/sessions/${b.id}/inbox`, { token: h.fleetKey });
    expect(inbox.body.items.map((i: any) => i.content)).toEqual(['still delivered']);
    expect(await eventsOf(h, b.id, 'inbox_item_added')).toHaveLength(1);
    expect(await eventsOf(h, b.id, 'uncle_linked')).toEqual([]);
    const failure = logs.lines.find((l) => l.msg === 'recording an uncle edge failed; the delivery stands');
    expect(failure).toBeDefined();
    expect(failure!.level).toBe(50);
    expect(failure!.uncle_edge).toMatchObject({ acting_session_id: a.id, session_id: b.id, source: 'rest.follow_up' });
    expect(String(failure!.err.message)).toContain('injected failure');
    // with the store repaired the next follow-up records its edge
    expect((await followUp(h, a.token, b.id)).body.uncle_edge.outcome).toBe('written');
  });
});

describeEachDialect('uncle edges: who the acting session is (docs/design/lineage.md)', (t) => {
  it('a session token is the actor; naming another acting session is refused before anything happens', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const other = await liveSession(h, h.fleetKey);
    const r = await followUp(h, a.token, b.id, { acting_session_id: other.id });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('acting-session-mismatch');
    const same = await followUp(h, a.token, b.id, { acting_session_id: `#${a.id}` });
    expect(same.body.uncle_edge.outcome).toBe('written');
    const inbox = await h.request('GET', `/api/v1/sessions/${b.id}/inbox`, { token: h.fleetKey });
    expect(inbox.body.items).toHaveLength(1);
  });

  it('fleet: a declared acting session; unresolved leaves the delivery untouched; none records nothing', async () => {
    const h = t();
    const b = await liveSession(h, h.fleetKey);
    const declared = await liveSession(h, h.fleetKey);
    const r = await followUp(h, h.fleetKey, b.id, { acting_session_id: declared.uid });
    expect(r.body.uncle_edge).toMatchObject({ outcome: 'written', basis: 'declared', acting_session_id: declared.id });
    expect(r.body.inbox_item.sender).toMatchObject({ kind: 'session', ref: String(declared.id), basis: 'declared' });
    const unresolved = await followUp(h, h.fleetKey, b.id, { acting_session_id: 999_999_999 });
    expect(unresolved.status).toBe(201);
    expect(unresolved.body.uncle_edge).toEqual({
      outcome: 'unresolved-acting-session',
      acting_session_id: null,
      session_id: b.id,
      basis: null,
      source: 'rest.follow_up',
    });
    expect(unresolved.body.inbox_item.sender).toMatchObject({ kind: 'fleet' });
    const none = await followUp(h, h.fleetKey, b.id);
    expect(none.body.uncle_edge.outcome).toBe('no-acting-session');
    // the declared session's own timeline says it sent the item
    const [sent] = await eventsOf(h, declared.id, 'inbox_item_sent');
    expect(sent.details).toMatchObject({ to_session_id: b.id, sender_basis: 'declared' });
  });

  it('humans are never uncles: acting_session_id from a human is 400; without one, no-acting-session', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey());
    const b = await liveSession(h, token);
    const other = await liveSession(h, token);
    const refused = await followUp(h, token, b.id, { acting_session_id: other.id });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('acting-session-not-allowed');
    const r = await followUp(h, token, b.id);
    expect(r.status).toBe(201);
    expect(r.body.uncle_edge.outcome).toBe('no-acting-session');
    expect(r.body.inbox_item.sender).toMatchObject({ kind: 'human', basis: 'authenticated' });
    const client = await h.clientKey(`c${Date.now().toString(36)}`);
    expect((await followUp(h, client, b.id)).body.uncle_edge.outcome).toBe('no-acting-session');
    expect(await uncleRows(h, [b.id])).toEqual([]);
  });

  it('archive with acting_session_id records the acting session in the event and writes no edge', async () => {
    const h = t();
    const target = (await h.create(h.fleetKey, { title: 'to archive' })).session;
    const acting = await liveSession(h, h.fleetKey);
    const r = await h.request('POST', `/api/v1/sessions/${target.id}/archive`, { token: h.fleetKey, body: { acting_session_id: acting.id } });
    expect(r.body.archived).toEqual([target.id]);
    const [e] = await eventsOf(h, target.id, 'archived');
    expect(e.details.acting_session_id).toBe(acting.id);
    expect(await uncleRows(h, [target.id, acting.id])).toEqual([]);
  });
});

describeEachDialect('uncle edges: removal (docs/design/lineage.md "Removing an edge recorded in error")', (t) => {
  it('removes exactly the named edge: 204, logged on both timelines with its record and who detached it', async () => {
    const h = t();
    const admin = await h.human(uniqueKey('admin'), { admin: true });
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    await followUp(h, h.fleetKey, b.id, { acting_session_id: a.id });
    const r = await h.request('DELETE', `/api/v1/sessions/${b.id}/uncle_links/${a.id}`, { token: admin.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(await uncleRows(h, [a.id, b.id])).toEqual([]);
    for (const [id, role] of [
      [b.id, 'junior'],
      [a.id, 'uncle'],
    ] as const) {
      const [e] = await eventsOf(h, id, 'uncle_removed');
      expect(e.details).toMatchObject({ session_id: b.id, uncle_session_id: a.id, role, edge: { source: 'rest.follow_up', basis: 'declared' } });
      expect(typeof e.details.edge.created_at).toBe('string');
      expect(e.actor).toMatchObject({ kind: 'human', ref: admin.user.key, basis: 'authenticated' });
    }
    const again = await h.request('DELETE', `/api/v1/sessions/${b.id}/uncle_links/${a.id}`, { token: admin.token });
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('uncle-link-not-found');
  });

  it('a pair named backwards is refused with the existing direction spelled out, and nothing is deleted', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    await followUp(h, a.token, b.id); // a → b
    const r = await h.request('DELETE', `/api/v1/sessions/${a.id}/uncle_links/${b.id}`, { token: h.fleetKey });
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('uncle-link-reversed');
    expect(r.body.existing).toMatchObject({ session_id: b.id, uncle_session_id: a.id });
    expect(r.body.message).toContain(`/api/v1/sessions/${b.id}/uncle_links/${a.id}`);
    expect(await uncleRows(h, [a.id, b.id])).toHaveLength(1);
  });

  it('is refused to session tokens (docs/design/sessions.md) and needs both sessions visible', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    await followUp(h, a.token, b.id);
    const bySession = await h.request('DELETE', `/api/v1/sessions/${b.id}/uncle_links/${a.id}`, { token: a.token });
    expect(bySession.status).toBe(403);
    expect(bySession.body.error).toBe('forbidden');
    const missing = await h.request('DELETE', `/api/v1/sessions/${b.id}/uncle_links/999999999`, { token: h.fleetKey });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('session-not-found');
    expect(await uncleRows(h, [a.id, b.id])).toHaveLength(1);
  });

  it("a session's delete record lists the uncle edges that went with it, ordered by kind then id", async () => {
    const h = t();
    const { token } = await h.human(uniqueKey());
    const doomed = await liveSession(h, token);
    const senior = await liveSession(h, h.fleetKey);
    const junior1 = await liveSession(h, h.fleetKey);
    const junior2 = await liveSession(h, h.fleetKey);
    const child = (await h.create(token, { title: 'child', parent_session_id: doomed.id })).session;
    await followUp(h, h.fleetKey, doomed.id, { acting_session_id: senior.id });
    await followUp(h, h.fleetKey, junior2.id, { acting_session_id: doomed.id });
    await followUp(h, h.fleetKey, junior1.id, { acting_session_id: doomed.id });
    const r = await h.request('DELETE', `/api/v1/sessions/${doomed.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body.deletion.affected.map((x: any) => [x.kind, x.id, x.action])).toEqual([
      ['child', child.id, 'parent_cleared'],
      ['uncle_edge', senior.id, 'removed'],
      ['uncle_edge', junior1.id, 'removed'],
      ['uncle_edge', junior2.id, 'removed'],
    ]);
    expect(r.body.deletion.affected.find((x: any) => x.id === senior.id)).toMatchObject({
      session_id: doomed.id,
      uncle_session_id: senior.id,
      source: 'rest.follow_up',
      basis: 'declared',
    });
    expect(await uncleRows(h, [doomed.id])).toEqual([]);
  });
});

describeEachDialect(
  'uncle edges in multi-user mode',
  (t) => {
    it('refused-owner: no edge between sessions of different owners', async () => {
      const h = t();
      const alice = await h.human(uniqueKey('alice'));
      const bob = await h.human(uniqueKey('bob'));
      const a = await liveSession(h, alice.token);
      const b = await liveSession(h, bob.token);
      const r = await followUp(h, h.fleetKey, b.id, { acting_session_id: a.id });
      expect(r.status).toBe(201);
      expect(r.body.uncle_edge.outcome).toBe('refused-owner');
      const a2 = await liveSession(h, alice.token);
      expect((await followUp(h, a.token, a2.id)).body.uncle_edge.outcome).toBe('written');
      // a session token cannot even see another owner's session
      const hidden = await followUp(h, a.token, b.id);
      expect(hidden.status).toBe(404);
      expect(await uncleRows(h, [b.id])).toEqual([]);
    });
  },
  { mode: 'multi-user' },
);
