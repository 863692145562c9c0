import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { verifyStoredChain } from '../../src/app/audit-verify.js';
import { verifyKeyedDigest } from '../../src/app/audit.js';
import { expireMessages } from '../../src/app/messages/message-settlement.js';
import { parseWarrantMessageFrame } from '../../src/core/inbox-frames.js';
import { describeEachDialect, ManualClock, uniqueKey, type Harness } from '../helpers/harness.js';
import { eventsOf, liveSession, type Live } from '../helpers/lineage.js';
import { delivered, expectRefusal, leaseAndAck, pair, reportConversation, send, sent, status } from '../helpers/messages.js';
import { SseReader } from '../helpers/sse.js';

/** docs/design/messages.md "Agent messages" and "Explicit replies": delivery, retries, expiry, the reply rule. */
const clock = new ManualClock();
const sha256 = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

async function reattach(h: Harness, s: Live): Promise<Live> {
  expect((await h.request('POST', `/api/v1/sessions/${s.id}/runtime`, { token: s.token, body: { state: 'exited', code: 0 } })).status).toBe(200);
  const r = await h.request('POST', `/api/v1/sessions/${s.id}/attach`, { token: h.fleetKey });
  expect(r.status).toBe(200);
  return { ...s, token: r.body.session_token };
}

async function auditEntries(h: Harness, kind: string, messageId: string): Promise<any[]> {
  const rows = await h.store.kysely.selectFrom('audit_log').select('entry').orderBy('seq').execute();
  return rows.map((r) => JSON.parse(r.entry)).filter((e) => e.kind === kind && e.message_id === messageId);
}

describeEachDialect(
  'agent messages: delivery through the inbox (docs/design/messages.md)',
  (t) => {
    it('a message reaches the target as a warrant-message frame; the acknowledgement makes it delivered and tells the sender', async () => {
      const h = t();
      const [a, b] = await pair(h, { provider: 'claude-code' });
      await reportConversation(h, a.token, a.id, 'conv-a');
      await reportConversation(h, b.token, b.id, 'conv-b');
      const res = await h.service.app.request('/api/v1/events/stream', { headers: { authorization: `Bearer ${a.token}`, host: 'localhost' } });
      const sse = new SseReader(res);
      await sse.next((e) => e.event === 'ready');

      const payload = 'Build #812 failed in step "lint" — can you look? ✓';
      const r = await send(h, a.token, { to: `#${b.id}`, payload, ref: 'lint-812', ttl: 120 });
      expect(r.status).toBe(201);
      const m = r.body.message;
      expect(r.body.replayed).toBe(false);
      expect(m).toEqual({
        id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
        ref: 'lint-812',
        ref_minted: false,
        conversation_ref: expect.stringMatching(/^conv_[0-9a-f]{32}$/),
        reply_to: null,
        source: { session_id: a.id, basis: 'authenticated', activation: 1, provider_conversation: 'conv-a' },
        target: { session_id: b.id, provider_conversation: 'conv-b' },
        deadline: new Date(clock.now().getTime() + 120_000).toISOString(),
        payload_bytes: Buffer.byteLength(payload, 'utf8'),
        payload_sha256: sha256(payload),
        accepted_at: clock.now().toISOString(),
        inbox_item_id: expect.any(Number),
      });
      expect((await status(h, a.token, m.id)).body.message).toMatchObject({ state: 'accepted', terminal_at: null, payload, reply_id: null });

      const inbox = await h.request('GET', `/api/v1/sessions/${b.id}/inbox`, { token: b.token });
      expect(inbox.body.items).toEqual([
        expect.objectContaining({
          id: m.inbox_item_id,
          kind: 'agent_message',
          mode: 'next_turn',
          state: 'pending',
          content: payload,
          expires_at: m.deadline,
          sender_session_id: a.id,
        }),
      ]);
      const [item] = await leaseAndAck(h, b);
      expect(item.frame.format).toBe('warrant-message');
      const frame = parseWarrantMessageFrame(item.frame.text)!;
      expect(frame).toMatchObject({
        kind: 'warrant-message',
        authority: 'peer',
        trust: 'untrusted',
        purpose: 'coordination-only',
        item_kind: 'agent_message',
        from: { session_id: a.id, basis: 'authenticated' },
        to: { session_id: b.id },
        content: payload,
        message_id: m.id,
        reply_to: null,
        conversation_ref: m.conversation_ref,
        deadline: m.deadline,
      });

      const st = (await status(h, a.token, m.id)).body.message;
      expect(st).toMatchObject({ state: 'delivered', terminal_at: clock.now().toISOString(), terminal_reason: 'acknowledged' });
      const ev = await sse.next((e) => e.event === 'message_delivered' && JSON.parse(e.data).message_id === m.id);
      expect(JSON.parse(ev.data)).toEqual({
        message_id: m.id,
        conversation_ref: m.conversation_ref,
        reply_to: null,
        source_session_id: a.id,
        target_session_id: b.id,
        delivered_at: st.terminal_at,
      });
      await sse.close();

      // the timelines: added on the target, sent on the sender, both naming the message
      const added = (await eventsOf(h, b.id, 'inbox_item_added')).find((e) => e.details.inbox_item_id === m.inbox_item_id);
      expect(added.details).toMatchObject({ kind: 'agent_message', message_id: m.id, sender_session_id: a.id });
      expect(added.actor).toMatchObject({ kind: 'session', ref: String(a.id), basis: 'authenticated' });
      const sentEvent = (await eventsOf(h, a.id, 'inbox_item_sent')).find((e) => e.details.inbox_item_id === m.inbox_item_id);
      expect(sentEvent.details).toMatchObject({ to_session_id: b.id, message_id: m.id });
    });

    it('same-ref retry delivers once and returns the original receipt; no ref means a fresh message each time', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const first = await send(h, a.token, { to: b.id, payload: 'once', ref: 'r-1' });
      clock.advance(5_000);
      const again = await send(h, a.token, { to: String(b.id), payload: 'once', ref: 'r-1' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ message: first.body.message, replayed: true });
      const x = await sent(h, a.token, { to: b.id, payload: 'twice' });
      const y = await sent(h, a.token, { to: b.id, payload: 'twice' });
      expect(x.id).not.toBe(y.id);
      expect(x.ref_minted && y.ref_minted).toBe(true);
      const items = await leaseAndAck(h, b);
      expect(items.map((i) => i.content)).toEqual(['once', 'twice', 'twice']);
      // still its receipt after delivery (immutable), and still nothing delivered again
      expect((await send(h, a.token, { to: b.id, payload: 'once', ref: 'r-1' })).body.message).toEqual(first.body.message);
      expect(await leaseAndAck(h, b)).toEqual([]);
    });

    it('a message whose deadline passes before its acknowledgement expires: a late lease never hands it out, a late ack does not deliver it', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const late = await sent(h, a.token, { to: b.id, payload: 'nobody took me', ttl: 30 });
      const leasedLate = await sent(h, a.token, { to: b.id, payload: 'taken but not acknowledged', ttl: 60 });
      clock.advance(30_000);
      // read without a write: the status and the inbox already say expired
      expect((await status(h, a.token, late.id)).body.message).toMatchObject({ state: 'expired', terminal_at: late.deadline, terminal_reason: 'deadline' });
      const lease = await h.request('POST', `/api/v1/sessions/${b.id}/inbox/lease`, { token: b.token });
      expect(lease.body.items.map((i: any) => i.content)).toEqual(['taken but not acknowledged']);
      const listed = await h.request('GET', `/api/v1/sessions/${b.id}/inbox?state=all`, { token: b.token });
      expect(listed.body.items.map((i: any) => [i.content, i.state])).toEqual([
        ['nobody took me', 'expired'],
        ['taken but not acknowledged', 'leased'],
      ]);
      clock.advance(30_000);
      const ack = await h.request('POST', `/api/v1/sessions/${b.id}/inbox/ack`, { token: b.token, body: { ids: [leasedLate.inbox_item_id] } });
      expect(ack.body).toEqual({ delivered: [], already_delivered: [], rejected: [{ id: leasedLate.inbox_item_id, reason: 'expired' }] });
      expect((await status(h, a.token, leasedLate.id)).body.message).toMatchObject({ state: 'expired', terminal_at: leasedLate.deadline });
      const history = await h.store.kysely
        .selectFrom('message_history')
        .selectAll()
        .where('message_id', 'in', [late.id, leasedLate.id])
        .orderBy('seq')
        .execute();
      expect(history.map((r) => [r.message_id, r.state, r.terminal_at, r.terminal_reason])).toEqual([
        [late.id, 'expired', late.deadline, 'deadline'],
        [leasedLate.id, 'expired', leasedLate.deadline, 'deadline'],
      ]);
    });

    it('housekeeping expires what is due everywhere, once', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const m = await sent(h, a.token, { to: b.id, payload: 'waiting', ttl: 10 });
      clock.advance(10_000);
      expect(await expireMessages(h.ctx)).toBeGreaterThanOrEqual(1);
      const row = await h.store.kysely.selectFrom('agent_messages').select(['state', 'terminal_at']).where('id', '=', m.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ state: 'expired', terminal_at: m.deadline });
      const item = await h.store.kysely.selectFrom('inbox_items').select('state').where('id', '=', m.inbox_item_id).executeTakeFirstOrThrow();
      expect(item.state).toBe('expired');
      expect(await expireMessages(h.ctx)).toBe(0);
      expect(await h.store.kysely.selectFrom('message_history').select('seq').where('message_id', '=', m.id).execute()).toHaveLength(1);
    });

    it('a message to a session deleted before acknowledging it fails, with its history', async () => {
      const h = t();
      const admin = await h.human(uniqueKey('admin'), { admin: true });
      const a = await liveSession(h, h.fleetKey);
      const c = (await h.create(h.fleetKey, { title: 'doomed' })).session;
      const m = await sent(h, a.token, { to: c.id, payload: 'you will not read this' });
      expect((await h.request('DELETE', `/api/v1/sessions/${c.id}`, { token: admin.token })).status).toBe(200);
      expect((await status(h, a.token, m.id)).body.message).toMatchObject({ state: 'failed', terminal_reason: 'target-deleted' });
      const row = await h.store.kysely
        .selectFrom('message_history')
        .select(['state', 'terminal_reason'])
        .where('message_id', '=', m.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ state: 'failed', terminal_reason: 'target-deleted' });
    });
  },
  { clock },
);

describeEachDialect(
  'explicit replies (docs/design/messages.md)',
  (t) => {
    it('a reply reverses the sessions, keeps the conversation and the deadline, and arrives framed as a reply', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const m = await delivered(h, a, b, { ttl: 300 });
      clock.advance(100_000);
      const r = await sent(h, b.token, { reply_to: m.id, payload: 'looking now' });
      expect(r).toMatchObject({
        reply_to: m.id,
        conversation_ref: m.conversation_ref,
        deadline: m.deadline,
        source: { session_id: b.id, basis: 'authenticated' },
        target: { session_id: a.id },
      });
      const [item] = await leaseAndAck(h, a);
      expect(parseWarrantMessageFrame(item.frame.text)).toMatchObject({
        from: { session_id: b.id },
        to: { session_id: a.id },
        reply_to: m.id,
        message_id: r.id,
        conversation_ref: m.conversation_ref,
      });
      expect((await status(h, a.token, m.id)).body.message.reply_id).toBe(r.id);
      // a reply to the reply continues the same conversation
      const rr = await sent(h, a.token, { reply_to: r.id, to: b.id, payload: 'thanks' });
      expect(rr.conversation_ref).toBe(m.conversation_ref);
    });

    it('a session resumed into the same provider conversation still receives and sends replies; delivered to the current activation', async () => {
      const h = t();
      const [a0, b0] = await pair(h, { provider: 'claude-code' });
      await reportConversation(h, a0.token, a0.id, 'conv-a');
      await reportConversation(h, b0.token, b0.id, 'conv-b');
      const m = await delivered(h, a0, b0);
      // both runtimes are replaced and re-attached into the same conversations
      const a = await reattach(h, a0);
      const b = await reattach(h, b0);
      const again = await reportConversation(h, b.token, b.id, 'conv-b', { transcript_path: '/home/u/.claude/projects/p/conv-b.jsonl' });
      expect(again.body.changed).toBe(false);
      const reply = await sent(h, b.token, { reply_to: m.id, payload: 'back after a restart' });
      expect(reply.source.activation).toBe(2);
      const [item] = await leaseAndAck(h, a);
      expect(item.content).toBe('back after a restart');
      expect((await status(h, a.token, reply.id)).body.message.state).toBe('delivered');
      // and the resumed sender can answer the reply
      expect((await send(h, a.token, { reply_to: reply.id, payload: 'welcome back' })).status).toBe(201);
    });

    it('a session moved to another conversation cannot reply; a conversation first bound after the original is not a change', async () => {
      const h = t();
      const [a, b0] = await pair(h, { provider: 'claude-code' });
      const unbound = await delivered(h, a, b0);
      await reportConversation(h, b0.token, b0.id, 'conv-1');
      expect((await send(h, b0.token, { reply_to: unbound.id, payload: 'bound since, still me' })).status).toBe(201);
      const m = await delivered(h, a, b0);
      const b = await reattach(h, b0);
      await reportConversation(h, b.token, b.id, 'conv-2');
      expectRefusal(
        await send(h, b.token, { reply_to: m.id, payload: 'different conversation' }),
        409,
        'reply-conversation-changed',
        'send a new message without reply_to',
      );
      expect((await send(h, b.token, { to: a.id, payload: 'a new message instead' })).status).toBe(201);
    });

    it("any inbox item a session received can be answered: a session's follow-up, a child's message_parent", async () => {
      const h = t();
      const [a, b] = await pair(h);
      const f = await h.request('POST', `/api/v1/sessions/${b.id}/follow_up`, { token: a.token, body: { content: 'rerun the tests' } });
      await leaseAndAck(h, b);
      const r = await sent(h, b.token, { reply_to: f.body.inbox_item.id, payload: 'rerun: green' });
      expect(r).toMatchObject({ reply_to: String(f.body.inbox_item.id), target: { session_id: a.id }, conversation_ref: expect.stringMatching(/^conv_/) });
      expectRefusal(await send(h, b.token, { reply_to: f.body.inbox_item.id, payload: 'twice' }), 409, 'reply-already-committed', 'inspect it; do not resend');

      const parent = await liveSession(h, h.fleetKey, { title: 'parent' });
      const child = await h.create(parent.token, { title: 'child', attach: true });
      const up = await h.request('POST', `/api/v1/sessions/${child.session.id}/message_parent`, {
        token: child.session_token,
        body: { content: 'wrong scope?' },
      });
      expect(up.status).toBe(201);
      await leaseAndAck(h, parent);
      const down = await sent(h, parent.token, { reply_to: up.body.inbox_item.id, payload: 'scope is right' });
      expect(down.target.session_id).toBe(child.session.id);
    });

    it("reply-only sessions may reply (to the original's sender only) and nothing else", async () => {
      const h = t();
      const a = await liveSession(h, h.fleetKey);
      const quiet = await liveSession(h, h.fleetKey, { messaging: 'reply-only' });
      const other = await liveSession(h, h.fleetKey);
      const m = await delivered(h, a, quiet);
      expectRefusal(
        await send(h, quiet.token, { to: other.id, reply_to: m.id, payload: 'elsewhere' }),
        409,
        'reply-correlation-mismatch',
        'check that reply_to names a message you received and that to is its sender',
      );
      expect((await send(h, quiet.token, { reply_to: m.id, payload: 'ack' })).status).toBe(201);
      expect((await send(h, quiet.token, { to: a.id, payload: 'unprompted' })).status).toBe(422);
      // PATCHing messaging back to full lets it start conversations again
      expect((await h.request('PATCH', `/api/v1/sessions/${quiet.id}`, { token: h.fleetKey, body: { messaging: 'full' } })).status).toBe(200);
      expect((await send(h, quiet.token, { to: a.id, payload: 'unprompted' })).status).toBe(201);
    });

    it('the fleet sends only as a declared session; humans, clients and admins do not send agent messages', async () => {
      const h = t();
      const b = await liveSession(h, h.fleetKey);
      const bare = await send(h, h.fleetKey, { to: b.id, payload: 'from nobody' });
      expect([bare.status, bare.body.error]).toEqual([403, 'forbidden']);
      const human = await h.human(uniqueKey());
      const admin = await h.human(uniqueKey('admin'), { admin: true });
      const client = await h.clientKey(`c${Date.now().toString(36)}`);
      for (const token of [human.token, admin.token, client]) {
        const r = await send(h, token, { to: b.id, payload: 'hello' });
        expect([r.status, r.body.error]).toEqual([403, 'forbidden']);
      }
      const ghost = await send(h, h.fleetKey, { to: b.id, payload: 'x', acting_session_id: 999_999_999 });
      expect([ghost.status, ghost.body.error]).toEqual([404, 'session-not-found']);
      const mismatch = await send(h, b.token, { to: b.id, payload: 'x', acting_session_id: b.id + 1 });
      expect([mismatch.status, mismatch.body.error]).toEqual([403, 'acting-session-mismatch']);
    });

    it('a message is readable by its sender, its target and admins; everyone else gets 404', async () => {
      const h = t();
      const [a, b0] = await pair(h);
      const m = await delivered(h, a, b0);
      const b = await reattach(h, b0);
      const declared = await sent(h, h.fleetKey, { to: b.id, payload: 'declared', acting_session_id: a.id });
      const c = await liveSession(h, h.fleetKey);
      const human = await h.human(uniqueKey());
      const admin = await h.human(uniqueKey('admin'), { admin: true });
      const client = await h.clientKey(`r${Date.now().toString(36)}`);
      const cases: [string, string, string, number][] = [
        ['sender', a.token, m.id, 200],
        ['target', b.token, m.id, 200],
        ['target, superseded token (reads still work)', b0.token, m.id, 200],
        ['admin', admin.token, m.id, 200],
        ['another session', c.token, m.id, 404],
        ['human', human.token, m.id, 404],
        ['client', client, m.id, 404],
        ['fleet, authenticated message', h.fleetKey, m.id, 404],
        ['fleet, declared message it sent', h.fleetKey, declared.id, 200],
        ['malformed id', admin.token, 'msg_nope', 404],
        ['unknown id', admin.token, `msg_${'f'.repeat(32)}`, 404],
      ];
      for (const [who, token, id, want] of cases) {
        const r = await status(h, token, id);
        expect(r.status, who).toBe(want);
        if (want === 404) expect(r.body.error, who).toBe('message-not-found');
      }
      const md = await h.request('GET', `/api/v1/messages/${m.id}?format=markdown`, { token: a.token });
      expect(md.text).toContain(`Message ${m.id}: delivered`);
    });
  },
  { clock },
);

describeEachDialect(
  'message history and retention (docs/design/messages.md)',
  (t) => {
    it('one history row per terminal message: the envelope keys, payload_bytes and sha256(payload bytes), never the payload; it joins the audit log', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const payload = 'the secret is 42 — ünïcødé';
      const m = await delivered(h, a, b, { payload });
      const columns = (await h.store.kysely.introspection.getTables()).find((x) => x.name === 'message_history')!.columns.map((c) => c.name);
      expect(columns).not.toContain('payload');
      const row = await h.store.kysely.selectFrom('message_history').selectAll().where('message_id', '=', m.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        schema_version: 1,
        ref: m.ref,
        conversation_ref: m.conversation_ref,
        reply_to: null,
        source_basis: 'authenticated',
        source_activation: 1,
        deadline: m.deadline,
        payload_bytes: Buffer.byteLength(payload, 'utf8'),
        payload_sha256: sha256(payload),
        state: 'delivered',
        accepted_at: m.accepted_at,
        terminal_reason: 'acknowledged',
      });
      expect(Number(row.source_session_id)).toBe(a.id);
      expect(JSON.stringify(row)).not.toContain('the secret');
      const [entry] = await auditEntries(h, 'message_history', m.id);
      expect(entry).toMatchObject({ message_id: m.id, state: 'delivered', payload_bytes: row.payload_bytes, history_seq: Number(row.seq) });
      expect(JSON.stringify(entry)).not.toContain('the secret');
      expect(JSON.stringify(entry)).not.toContain(sha256(payload));
      // while the payload exists, anyone who may read it can prove the log entry is of these words
      const key = (await h.store.kysely.selectFrom('agent_messages').select('digest_key').where('id', '=', m.id).executeTakeFirstOrThrow()).digest_key!;
      expect(verifyKeyedDigest(key, payload, entry.payload_digest)).toBe(true);
      expect(verifyKeyedDigest(key, payload + '!', entry.payload_digest)).toBe(false);
      expect((await verifyStoredChain(h.store.kysely)).ok).toBe(true);
    });

    it('retention reclaims payloads (7 days after terminal by default), keeps the envelope and history; a reclaimed original cannot be answered', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const m = await delivered(h, a, b, { payload: 'ephemeral words', ref: 'keep-ref' });
      const { reclaimMessagePayloads } = await import('../../src/app/messages/message-retention.js');
      clock.advance(7 * 86_400_000 - 1);
      await reclaimMessagePayloads(h.ctx);
      expect((await status(h, a.token, m.id)).body.message.payload).toBe('ephemeral words');
      clock.advance(1);
      const heldBefore = Number(
        (await h.store.kysely.selectFrom('counters').select('value').where('name', '=', 'agent_messages_held').executeTakeFirstOrThrow()).value,
      );
      expect((await reclaimMessagePayloads(h.ctx)).retention).toBeGreaterThanOrEqual(1);
      const st = (await status(h, a.token, m.id)).body.message;
      expect(st).toMatchObject({
        state: 'delivered',
        payload: null,
        payload_reclaimed_at: clock.now().toISOString(),
        payload_sha256: sha256('ephemeral words'),
      });
      const row = await h.store.kysely.selectFrom('agent_messages').select(['payload', 'digest_key']).where('id', '=', m.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ payload: null, digest_key: null });
      expect(await h.store.kysely.selectFrom('inbox_items').select('id').where('id', '=', m.inbox_item_id).execute()).toEqual([]);
      const heldAfter = Number(
        (await h.store.kysely.selectFrom('counters').select('value').where('name', '=', 'agent_messages_held').executeTakeFirstOrThrow()).value,
      );
      expect(heldAfter).toBeLessThan(heldBefore);
      expect(await auditEntries(h, 'message_payload_reclaimed', m.id)).toEqual([expect.objectContaining({ reason: 'retention' })]);
      expect(await h.store.kysely.selectFrom('message_history').select('payload_sha256').where('message_id', '=', m.id).execute()).toEqual([
        { payload_sha256: sha256('ephemeral words') },
      ]);

      const r = await send(h, b.token, { reply_to: m.id, payload: 'too late to answer' });
      expectRefusal(r, 409, 'reply-original-not-found', 'send a new message without reply_to');
      expect(r.body.message).toMatch(/reclaimed/);
      // the ref stays taken for good: a retry still gets its receipt, never a second delivery
      const retry = await send(h, a.token, { to: b.id, payload: 'ephemeral words', ref: 'keep-ref' });
      expect([retry.status, retry.body.message.id]).toEqual([200, m.id]);
    });
  },
  { clock },
);

describeEachDialect(
  'agent messages across owners (multi-user)',
  (t) => {
    it("a session sees only its owner's sessions: another owner's is target-not-found", async () => {
      const h = t();
      const alice = await h.human(uniqueKey('alice'));
      const bob = await h.human(uniqueKey('bob'));
      const a = await liveSession(h, alice.token);
      const mine = await liveSession(h, alice.token);
      const theirs = await liveSession(h, bob.token);
      expectRefusal(await send(h, a.token, { to: theirs.id, payload: 'hi bob' }), 404, 'target-not-found', 'check the session ref');
      expect((await send(h, a.token, { to: mine.id, payload: 'hi me' })).status).toBe(201);
    });
  },
  { mode: 'multi-user' },
);
