import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { parseWarrantMessageFrame } from '../../src/core/inbox-frames.js';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { eventsOf, followUp, liveSession, uncleRows } from '../helpers/lineage.js';

const enqueue = (h: Harness, token: string, id: number, body: Record<string, unknown> = {}) =>
  h.request('POST', `/api/v1/sessions/${id}/enqueued_messages`, { token, body: { content: 'when you are free', ...body } });
const queueAct = (h: Harness, token: string, id: number, mid: number, act: 'send_now' | 'interrupt', body: Record<string, unknown> = {}) =>
  h.request('POST', `/api/v1/sessions/${id}/enqueued_messages/${mid}/${act}`, { token, body });

describeEachDialect('the paths into an inbox (docs/design/messages.md, docs/design/surfaces.md)', (t) => {
  it('enqueue, list, send_now: when_idle becomes next_turn, attributed, with its own uncle-edge entry point', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const created = await enqueue(h, a.token, b.id);
    expect(created.status).toBe(201);
    expect(created.body.inbox_item).toMatchObject({ kind: 'enqueued', mode: 'when_idle', state: 'pending' });
    expect(created.body.uncle_edge).toMatchObject({ outcome: 'written', source: 'rest.enqueue' });
    const mid = created.body.inbox_item.id;
    const listed = await h.request('GET', `/api/v1/sessions/${b.id}/enqueued_messages`, { token: h.fleetKey });
    expect(listed.body.enqueued_messages.map((m: any) => m.id)).toEqual([mid]);

    const other = await liveSession(h, h.fleetKey);
    const promoted = await queueAct(h, other.token, b.id, mid, 'send_now');
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({
      changed: true,
      inbox_item: { id: mid, mode: 'next_turn', state: 'pending' },
      uncle_edge: { outcome: 'written', source: 'rest.send_now', acting_session_id: other.id },
    });
    const [e] = await eventsOf(h, b.id, 'inbox_item_promoted');
    expect(e.details).toMatchObject({ inbox_item_id: mid, action: 'send_now', old_mode: 'when_idle', new_mode: 'next_turn' });
    expect(e.actor).toMatchObject({ kind: 'session', ref: String(other.id) });
    // no effect, nothing recorded
    const again = await queueAct(h, other.token, b.id, mid, 'send_now');
    expect(again.body).toMatchObject({ changed: false, uncle_edge: null });
    expect(await eventsOf(h, b.id, 'inbox_item_promoted')).toHaveLength(1);
  });

  it('interrupt: with new content, or a queued message by id', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const fresh = await h.request('POST', `/api/v1/sessions/${b.id}/interrupt`, { token: a.token, body: { content: 'stop and read this' } });
    expect(fresh.status).toBe(201);
    expect(fresh.body.inbox_item).toMatchObject({ kind: 'enqueued', mode: 'interrupt', content: 'stop and read this' });
    expect(fresh.body.uncle_edge).toMatchObject({ outcome: 'written', source: 'rest.interrupt' });
    const mid = (await enqueue(h, h.fleetKey, b.id)).body.inbox_item.id;
    const byId = await queueAct(h, h.fleetKey, b.id, mid, 'interrupt', { acting_session_id: a.id });
    expect(byId.body).toMatchObject({
      changed: true,
      inbox_item: { mode: 'interrupt' },
      uncle_edge: { outcome: 'noop-already-senior', basis: 'declared', source: 'rest.interrupt' },
    });
  });

  it('withdraw: only a pending enqueued message of this session; refusals name the state', async () => {
    const h = t();
    const b = await liveSession(h, h.fleetKey);
    const c = await liveSession(h, h.fleetKey);
    const mid = (await enqueue(h, h.fleetKey, b.id)).body.inbox_item.id;
    const w = await h.request('DELETE', `/api/v1/sessions/${b.id}/enqueued_messages/${mid}`, { token: h.fleetKey });
    expect(w.status).toBe(200);
    expect(w.body).toMatchObject({ changed: true, uncle_edge: null, inbox_item: { state: 'withdrawn' } });
    expect(typeof w.body.inbox_item.withdrawn_at).toBe('string');
    const [e] = await eventsOf(h, b.id, 'inbox_item_withdrawn');
    expect(e.details).toMatchObject({ inbox_item_id: mid, kind: 'enqueued', mode: 'when_idle' });
    const twice = await h.request('DELETE', `/api/v1/sessions/${b.id}/enqueued_messages/${mid}`, { token: h.fleetKey });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ error: 'enqueued-message-not-pending', state: 'withdrawn' });
    expect((await queueAct(h, h.fleetKey, b.id, mid, 'send_now')).body.error).toBe('enqueued-message-not-pending');

    // leased: in the runtime's hands
    const leasedId = (await h.request('POST', `/api/v1/sessions/${b.id}/interrupt`, { token: h.fleetKey, body: { content: 'x' } })).body.inbox_item.id;
    await h.request('POST', `/api/v1/sessions/${b.id}/inbox/lease`, { token: b.token });
    const leased = await h.request('DELETE', `/api/v1/sessions/${b.id}/enqueued_messages/${leasedId}`, { token: h.fleetKey });
    expect(leased.status).toBe(409);
    expect(leased.body).toMatchObject({ error: 'enqueued-message-not-pending', state: 'leased' });

    // not found: unknown, another session's, or not a queue item (a follow-up)
    const follow = (await followUp(h, h.fleetKey, b.id)).body.inbox_item.id;
    const elsewhere = (await enqueue(h, h.fleetKey, c.id)).body.inbox_item.id;
    for (const id of [999_999_999, elsewhere, follow]) {
      const r = await h.request('DELETE', `/api/v1/sessions/${b.id}/enqueued_messages/${id}`, { token: h.fleetKey });
      expect(r.status).toBe(404);
      expect(r.body.error).toBe('enqueued-message-not-found');
    }
    for (const bad of ['abc', '0', '1e20', '100000000000000000000']) {
      const r = await h.request('DELETE', `/api/v1/sessions/${b.id}/enqueued_messages/${bad}`, { token: h.fleetKey });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid-request');
    }
    const hugeAck = await h.request('POST', `/api/v1/sessions/${b.id}/inbox/ack`, { token: h.fleetKey, body: { ids: [1e20] } });
    expect(hugeAck.status).toBe(400);
  });

  it('bad content and archived targets are refused before anything is stored', async () => {
    const h = t();
    const b = await liveSession(h, h.fleetKey);
    const empty = await followUp(h, h.fleetKey, b.id, { content: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ error: 'invalid-request', field: 'content' });
    const missing = await h.request('POST', `/api/v1/sessions/${b.id}/follow_up`, { token: h.fleetKey, body: {} });
    expect(missing.status).toBe(400);
    const huge = await followUp(h, h.fleetKey, b.id, { content: 'x'.repeat(256 * 1024 + 1) });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe('content-too-large');
    const archived = (await h.create(h.fleetKey, { title: 'gone' })).session;
    await h.request('POST', `/api/v1/sessions/${archived.id}/archive`, { token: h.fleetKey });
    const r = await followUp(h, h.fleetKey, archived.id);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'target-unavailable', status: 'archived' });
    for (const id of [b.id, archived.id])
      expect((await h.request('GET', `/api/v1/sessions/${id}/inbox?state=all`, { token: h.fleetKey })).body.items).toEqual([]);
    expect((await followUp(h, h.fleetKey, 999_999_999)).status).toBe(404);
  });

  it('format=markdown renders the shared text', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const r = await h.request('POST', `/api/v1/sessions/${b.id}/follow_up?format=markdown`, { token: a.token, body: { content: 'hi' } });
    // created, in either representation (the OpenAPI document says 201 for both)
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toContain('text/markdown');
    expect(r.text).toContain(`is in session #${b.id}'s inbox (next_turn, pending)`);
    expect(r.text).toContain(`Uncle edge: written — #${a.id} → #${b.id} (authenticated)`);
  });
});

describeEachDialect('message_parent: the child-to-parent channel (docs/design/lineage.md)', (t) => {
  it("delivers a peer-framed parent_message to the caller's lineage parent, logged on both timelines, no uncle edge", async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey);
    const child = await liveSession(h, parent.token);
    const r = await h.request('POST', `/api/v1/sessions/${child.id}/message_parent`, { token: child.token, body: { content: 'you gave me the wrong scope' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      parent_session_id: parent.id,
      inbox_item: { session_id: parent.id, kind: 'parent_message', mode: 'next_turn', sender_session_id: child.id },
    });
    const [added] = await eventsOf(h, parent.id, 'inbox_item_added');
    expect(added.details).toMatchObject({ kind: 'parent_message', sender_session_id: child.id });
    const [sent] = await eventsOf(h, child.id, 'inbox_item_sent');
    expect(sent.details).toMatchObject({ kind: 'parent_message', to_session_id: parent.id });
    expect(await uncleRows(h, [parent.id, child.id])).toEqual([]);
    const leased = await h.request('POST', `/api/v1/sessions/${parent.id}/inbox/lease`, { token: parent.token });
    const frame = parseWarrantMessageFrame(leased.body.items[0].frame.text);
    expect(frame).toMatchObject({
      trust: 'untrusted',
      authority: 'peer',
      purpose: 'coordination-only',
      from: { session_id: child.id, relation: 'child' },
      to: { session_id: parent.id },
      content: 'you gave me the wrong scope',
    });
  });

  it('reaches a legacy-key parent too', async () => {
    const h = t();
    const router = await liveSession(h, h.fleetKey);
    const legacy = await liveSession(h, h.fleetKey, { custom_metadata: { router_session_id: String(router.id) } });
    const r = await h.request('POST', `/api/v1/sessions/${legacy.id}/message_parent`, { token: legacy.token, body: { content: 'done' } });
    expect(r.status).toBe(201);
    expect(r.body.parent_session_id).toBe(router.id);
  });

  it('refusals: no-parent, not the session itself, another session named, archived parent', async () => {
    const h = t();
    const orphan = await liveSession(h, h.fleetKey);
    const none = await h.request('POST', `/api/v1/sessions/${orphan.id}/message_parent`, { token: orphan.token, body: { content: 'anyone?' } });
    expect(none.status).toBe(409);
    expect(none.body.error).toBe('no-parent');
    const parent = await liveSession(h, h.fleetKey);
    const child = await liveSession(h, parent.token);
    const human = await h.human(uniqueKey());
    for (const token of [h.fleetKey, human.token]) {
      const r = await h.request('POST', `/api/v1/sessions/${child.id}/message_parent`, { token, body: { content: 'x' } });
      expect(r.status).toBe(403);
      expect(r.body.error).toBe('forbidden');
    }
    const someoneElse = await h.request('POST', `/api/v1/sessions/${child.id}/message_parent`, { token: orphan.token, body: { content: 'x' } });
    expect(someoneElse.status).toBe(403);
    // an archived parent: archive the tree while the child is pending, then revive only the child
    const oldParent = (await h.create(h.fleetKey, { title: 'old parent' })).session;
    const late = (await h.create(h.fleetKey, { title: 'late child', parent_session_id: oldParent.id })).session;
    expect((await h.request('POST', `/api/v1/sessions/${oldParent.id}/archive`, { token: h.fleetKey })).body.archived.sort()).toEqual(
      [oldParent.id, late.id].sort(),
    );
    await h.request('POST', `/api/v1/sessions/${late.id}/unarchive`, { token: h.fleetKey });
    const lateToken = (await h.request('POST', `/api/v1/sessions/${late.id}/attach`, { token: h.fleetKey })).body.session_token;
    const archived = await h.request('POST', `/api/v1/sessions/${late.id}/message_parent`, { token: lateToken, body: { content: 'x' } });
    expect(archived.status).toBe(409);
    expect(archived.body.error).toBe('target-unavailable');
    expect((await h.request('GET', `/api/v1/sessions/${oldParent.id}/inbox?state=all`, { token: h.fleetKey })).body.items).toEqual([]);
    expect((await h.request('GET', `/api/v1/sessions/${parent.id}/inbox?state=all`, { token: h.fleetKey })).body.items).toEqual([]);
  });
});

describeEachDialect('human-message capture on the delivery paths (docs/design/capture.md)', (t) => {
  const messages = (h: Harness, id: number) => h.store.kysely.selectFrom('human_messages').selectAll().where('session_id', '=', id).orderBy('id').execute();

  it("records a human token's follow-up, enqueue and interrupt with their entry points, in the delivery's transaction; nothing for fleet or session tokens", async () => {
    const h = t();
    const { token } = await h.human(uniqueKey());
    const s = await liveSession(h, token);
    await followUp(h, token, s.id, { content: 'by hand' });
    const queued = await h.request('POST', `/api/v1/sessions/${s.id}/enqueued_messages`, {
      token,
      body: { content: 'queued by hand' },
      headers: { 'x-warrant-client': 'cli' },
    });
    await h.request('POST', `/api/v1/sessions/${s.id}/interrupt`, { token, body: { content: 'now' } });
    await followUp(h, h.fleetKey, s.id);
    await followUp(h, s.token, s.id);
    const recorded = await messages(h, s.id);
    expect(recorded.map((m) => [m.entry_point, m.content, m.inbox_item_id !== null])).toEqual([
      ['cli.follow_up', 'by hand', true],
      ['cli.enqueued_message', 'queued by hand', true],
      ['cli.interrupt', 'now', true],
    ]);
    // a withdrawn enqueued message keeps its record; the withdrawal is its own row
    const mid = queued.body.inbox_item.id;
    const withdrawn = await h.request('DELETE', `/api/v1/sessions/${s.id}/enqueued_messages/${mid}`, { token });
    expect(withdrawn.status).toBe(200);
    const rows = await h.store.kysely.selectFrom('human_message_withdrawals').selectAll().where('session_id', '=', s.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.human_message_id).toBe(recorded[1]!.id);
    expect((await messages(h, s.id))[1]!.content).toBe('queued by hand');
  });

  it('a capture that fails fails the delivery: nothing lands without its record', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey());
    const s = await liveSession(h, token);
    const failing =
      h.dialect === 'sqlite'
        ? [sql`create trigger fail_capture2 before insert on human_messages when new.content = 'lost?' begin select raise(abort, 'capture failed'); end`]
        : [
            sql`create or replace function fail_capture2() returns trigger language plpgsql as $$ begin if new.content = 'lost?' then raise exception 'capture failed'; end if; return new; end $$`,
            sql`create trigger fail_capture2 before insert on human_messages for each row execute function fail_capture2()`,
          ];
    for (const stmt of failing) await stmt.execute(h.store.kysely);
    try {
      const before = (await h.request('GET', `/api/v1/sessions/${s.id}/inbox?state=all`, { token: h.fleetKey })).body.items.length;
      const failed = await followUp(h, token, s.id, { content: 'lost?' });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect((await h.request('GET', `/api/v1/sessions/${s.id}/inbox?state=all`, { token: h.fleetKey })).body.items).toHaveLength(before);
    } finally {
      await sql.raw(h.dialect === 'sqlite' ? 'drop trigger fail_capture2' : 'drop trigger fail_capture2 on human_messages').execute(h.store.kysely);
    }
  });
});
