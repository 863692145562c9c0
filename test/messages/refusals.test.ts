import { sql } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { MESSAGE_REFUSALS, MESSAGE_REFUSAL_ORDER } from '../../src/core/message-refusals.js';
import { describeEachDialect, ManualClock, uniqueKey, type Harness } from '../helpers/harness.js';
import { liveSession, type Live } from '../helpers/lineage.js';
import {
  delivered,
  expectRefusal,
  leaseAndAck,
  pair,
  refusedWithoutWrites,
  reportConversation,
  send,
  sent,
  status,
  storeSnapshot,
} from '../helpers/messages.js';

/**
 * docs/design/messages.md "Refusal tokens": one test per token, each constructing its cause and checking the
 * token, its HTTP status, the one action the table names for it, and that nothing was written
 * (every refusal but `outcome-unknown` happens before anything is).
 */
const clock = new ManualClock();
const action = (token: keyof typeof MESSAGE_REFUSALS) => MESSAGE_REFUSALS[token].action;

/** A new activation: the runtime exits, another attaches; the old token is superseded. */
async function reattach(h: Harness, s: Live): Promise<Live> {
  expect((await h.request('POST', `/api/v1/sessions/${s.id}/runtime`, { token: s.token, body: { state: 'exited', code: 0 } })).status).toBe(200);
  const r = await h.request('POST', `/api/v1/sessions/${s.id}/attach`, { token: h.fleetKey });
  expect(r.status).toBe(200);
  return { ...s, token: r.body.session_token };
}

describeEachDialect(
  'agent message refusals, one per token (docs/design/messages.md)',
  (t) => {
    it("the table is docs/design/messages.md's, in its order", () => {
      expect(MESSAGE_REFUSAL_ORDER).toEqual([
        'envelope-invalid',
        'ref-content-mismatch',
        'source-activation-stale',
        'target-not-found',
        'target-unavailable',
        'reply-sender-unverified',
        'reply-original-not-found',
        'reply-operator-origin',
        'reply-correlation-mismatch',
        'reply-original-not-delivered',
        'reply-conversation-changed',
        'reply-deadline-expired',
        'reply-deadline-extended',
        'reply-already-committed',
        'store-unavailable',
        'store-capacity',
        'outcome-unknown',
      ]);
    });

    it('envelope-invalid (422): payload over 64 KiB, ttl outside 1–86,400, missing to, not text, a reply-only session starting a conversation', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const bad = [
        { to: b.id, payload: 'x'.repeat(64 * 1024 + 1) },
        { to: b.id, payload: 'é'.repeat(32 * 1024 + 1) }, // 65,538 bytes of UTF-8 in 32,769 characters
        { to: b.id, payload: 'hi', ttl: 0 },
        { to: b.id, payload: 'hi', ttl: 86_401 },
        { to: b.id, payload: 'hi', ttl: 1.5 },
        { to: b.id, payload: 'hi', ttl: '60' },
        { payload: 'no target' },
        { to: b.id, payload: 42 },
        { to: b.id },
        { to: b.id, payload: '   ' },
        { to: b.id, payload: 'nul \u0000 inside' },
        { to: b.id, payload: 'lone \ud800 surrogate' },
        { to: b.id, payload: 'hi', reply_to: 'not-a-message-id' },
        { to: b.id, payload: 'hi', ref: '' },
      ];
      for (const body of bad) {
        const r = await refusedWithoutWrites(h, () => send(h, a.token, body), 422, 'envelope-invalid', action('envelope-invalid'));
        expect(typeof r.body.field, JSON.stringify(body).slice(0, 80)).toBe('string');
      }
      // exactly at the limits: accepted
      expect((await send(h, a.token, { to: b.id, payload: 'x'.repeat(64 * 1024), ttl: 86_400 })).status).toBe(201);
      expect((await send(h, a.token, { to: b.id, payload: 'y', ttl: 1 })).status).toBe(201);

      const quiet = await liveSession(h, h.fleetKey, { title: 'reply-only', messaging: 'reply-only' });
      const r = await refusedWithoutWrites(
        h,
        () => send(h, quiet.token, { to: b.id, payload: 'may I start?' }),
        422,
        'envelope-invalid',
        action('envelope-invalid'),
      );
      expect(r.body).toMatchObject({ field: 'reply_to', reason: 'reply-only-session' });
    });

    it('ref-content-mismatch (409): the same ref with other content names the earlier message', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const first = await sent(h, a.token, { to: b.id, payload: 'deploy at noon', ref: 'deploy-1' });
      await refusedWithoutWrites(
        h,
        () => send(h, a.token, { to: b.id, payload: 'deploy at one', ref: 'deploy-1' }),
        409,
        'ref-content-mismatch',
        action('ref-content-mismatch'),
        first.id,
      );
      const c = await liveSession(h, h.fleetKey);
      await refusedWithoutWrites(
        h,
        () => send(h, a.token, { to: c.id, payload: 'deploy at noon', ref: 'deploy-1' }),
        409,
        'ref-content-mismatch',
        action('ref-content-mismatch'),
        first.id,
      );
    });

    it('source-activation-stale (409): a token of a replaced activation cannot send', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const current = await reattach(h, a);
      const r = await refusedWithoutWrites(
        h,
        () => send(h, a.token, { to: b.id, payload: 'from the old process' }),
        409,
        'source-activation-stale',
        action('source-activation-stale'),
      );
      expect(r.body).toMatchObject({ token_activation: 1, current_activation: 2 });
      expect((await send(h, current.token, { to: b.id, payload: 'from the new one' })).status).toBe(201);
    });

    it('target-not-found (404): `to` names no session the caller can see', async () => {
      const h = t();
      const a = await liveSession(h, h.fleetKey);
      await refusedWithoutWrites(h, () => send(h, a.token, { to: 999_999_999, payload: 'anyone?' }), 404, 'target-not-found', action('target-not-found'));
      await refusedWithoutWrites(
        h,
        () => send(h, a.token, { to: 'uid:ffffffff-ffff-4fff-bfff-ffffffffffff', payload: 'anyone?' }),
        404,
        'target-not-found',
        action('target-not-found'),
      );
    });

    it('target-unavailable (409): the target is archived', async () => {
      const h = t();
      const a = await liveSession(h, h.fleetKey);
      const parked = (await h.create(h.fleetKey, { title: 'parked' })).session;
      expect((await h.request('POST', `/api/v1/sessions/${parked.id}/archive`, { token: h.fleetKey, body: {} })).body.archived).toEqual([parked.id]);
      await refusedWithoutWrites(h, () => send(h, a.token, { to: parked.id, payload: 'hello?' }), 409, 'target-unavailable', action('target-unavailable'));
    });

    it('reply-sender-unverified (409): a declared acting session cannot answer anything', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const m = await delivered(h, a, b);
      await refusedWithoutWrites(
        h,
        () => send(h, h.fleetKey, { reply_to: m.id, payload: 'answer for b', acting_session_id: b.id }),
        409,
        'reply-sender-unverified',
        action('reply-sender-unverified'),
      );
      // the fleet may still send new messages for a declared session
      expect((await send(h, h.fleetKey, { to: a.id, payload: 'a new message', acting_session_id: b.id })).body.message.source).toMatchObject({
        session_id: b.id,
        basis: 'declared',
      });
    });

    it('reply-original-not-found (409): no such message or inbox item', async () => {
      const h = t();
      const [a, b] = await pair(h);
      await refusedWithoutWrites(
        h,
        () => send(h, b.token, { to: a.id, reply_to: `msg_${'0'.repeat(32)}`, payload: 're: ?' }),
        409,
        'reply-original-not-found',
        action('reply-original-not-found'),
      );
      await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: 987_654_321, payload: 're: ?' }),
        409,
        'reply-original-not-found',
        action('reply-original-not-found'),
      );
    });

    it('reply-operator-origin (409): the original is an inbox item a human sent', async () => {
      const h = t();
      const key = uniqueKey('op');
      const human = await h.human(key);
      const b = await liveSession(h, human.token);
      const f = await h.request('POST', `/api/v1/sessions/${b.id}/follow_up`, { token: human.token, body: { content: 'run the migration' } });
      expect(f.status).toBe(201);
      await leaseAndAck(h, b);
      const r = await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: f.body.inbox_item.id, payload: 'done' }),
        409,
        'reply-operator-origin',
        action('reply-operator-origin'),
      );
      expect(r.body.origin).toEqual({ kind: 'operator', client: 'cli', actor: { kind: 'human', ref: key } });
      // the fleet's own follow-up has no session to answer either
      const g = await h.request('POST', `/api/v1/sessions/${b.id}/follow_up`, { token: h.fleetKey, body: { content: 'and the next one' } });
      await leaseAndAck(h, b);
      const r2 = await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: String(g.body.inbox_item.id), payload: 'done' }),
        409,
        'reply-operator-origin',
        action('reply-operator-origin'),
      );
      expect(r2.body.origin).toEqual({ kind: 'operator', client: null, actor: { kind: 'fleet', ref: null } });
    });

    it("reply-correlation-mismatch (409): the caller is not the original's target, or `to` is not its sender", async () => {
      const h = t();
      const [a, b] = await pair(h);
      const c = await liveSession(h, h.fleetKey);
      const m = await delivered(h, a, b);
      await refusedWithoutWrites(
        h,
        () => send(h, c.token, { reply_to: m.id, payload: 'not mine to answer' }),
        409,
        'reply-correlation-mismatch',
        action('reply-correlation-mismatch'),
      );
      await refusedWithoutWrites(
        h,
        () => send(h, a.token, { reply_to: m.id, payload: 'answering myself' }),
        409,
        'reply-correlation-mismatch',
        action('reply-correlation-mismatch'),
      );
      await refusedWithoutWrites(
        h,
        () => send(h, b.token, { to: c.id, reply_to: m.id, payload: 'to the wrong session' }),
        409,
        'reply-correlation-mismatch',
        action('reply-correlation-mismatch'),
      );
    });

    it('reply-original-not-delivered (409): the target never acknowledged the original', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const m = await sent(h, a.token, { to: b.id, payload: 'ping' });
      await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: m.id, payload: 'pong' }),
        409,
        'reply-original-not-delivered',
        action('reply-original-not-delivered'),
      );
      // leased but not acknowledged is still not delivered
      await h.request('POST', `/api/v1/sessions/${b.id}/inbox/lease`, { token: b.token });
      await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: m.id, payload: 'pong' }),
        409,
        'reply-original-not-delivered',
        action('reply-original-not-delivered'),
      );
    });

    it('reply-conversation-changed (409): either session now runs in another provider conversation', async () => {
      const h = t();
      const [a, b] = await pair(h, { provider: 'claude-code' });
      await reportConversation(h, a.token, a.id, 'conv-a-1');
      await reportConversation(h, b.token, b.id, 'conv-b-1');
      const m1 = await delivered(h, a, b);
      await reportConversation(h, b.token, b.id, 'conv-b-2');
      const r = await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: m1.id, payload: 'answer' }),
        409,
        'reply-conversation-changed',
        action('reply-conversation-changed'),
      );
      expect(r.body.session_id).toBe(b.id);
      // the original's sender moved
      const m2 = await delivered(h, a, b);
      await reportConversation(h, a.token, a.id, 'conv-a-2');
      const r2 = await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: m2.id, payload: 'answer' }),
        409,
        'reply-conversation-changed',
        action('reply-conversation-changed'),
      );
      expect(r2.body.session_id).toBe(a.id);
    });

    it("reply-deadline-expired (409): the original's deadline has passed", async () => {
      const h = t();
      const [a, b] = await pair(h);
      const m = await delivered(h, a, b, { ttl: 60 });
      clock.advance(60_000);
      await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: m.id, payload: 'too late' }),
        409,
        'reply-deadline-expired',
        action('reply-deadline-expired'),
      );
    });

    it("reply-deadline-extended (409): a reply cannot end after the original's deadline", async () => {
      const h = t();
      const [a, b] = await pair(h);
      const m = await delivered(h, a, b, { ttl: 60 });
      clock.advance(10_000);
      await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: m.id, payload: 'later', ttl: 51 }),
        409,
        'reply-deadline-extended',
        action('reply-deadline-extended'),
      );
      const ok = await sent(h, b.token, { reply_to: m.id, payload: 'in time', ttl: 50 });
      expect(ok.deadline).toBe(m.deadline);
    });

    it('reply-already-committed (409): a second reply names the first', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const m = await delivered(h, a, b);
      const first = await sent(h, b.token, { reply_to: m.id, payload: 'yes' });
      await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: m.id, payload: 'actually no' }),
        409,
        'reply-already-committed',
        action('reply-already-committed'),
        first.id,
      );
      // answering by the inbox item id is answering the same message
      await refusedWithoutWrites(
        h,
        () => send(h, b.token, { reply_to: m.inbox_item_id, payload: 'no' }),
        409,
        'reply-already-committed',
        action('reply-already-committed'),
        first.id,
      );
    });

    it('store-unavailable (503): the store refuses writes mid-send; nothing was written', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const readOnly = h.dialect === 'sqlite' ? sql`pragma query_only = 1` : sql`set transaction read only`;
      h.ctx.seams = { afterRead: async (point, _id, tx) => (point === 'message-send' && tx ? void (await readOnly.execute(tx)) : undefined) };
      try {
        await refusedWithoutWrites(
          h,
          () => send(h, a.token, { to: b.id, payload: 'into a read-only store' }),
          503,
          'store-unavailable',
          action('store-unavailable'),
        );
      } finally {
        h.ctx.seams = undefined;
        if (h.dialect === 'sqlite') await sql`pragma query_only = 0`.execute(h.store.kysely);
      }
      expect((await send(h, a.token, { to: b.id, payload: 'and again, writable' })).status).toBe(201);
    });

    it('outcome-unknown (503): the COMMIT itself fails; the refusal names the message to inspect', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const before = await storeSnapshot(h);
      h.ctx.seams = {
        beforeCommit: async (point, tx) => {
          if (point !== 'message-send') return;
          if (h.dialect === 'sqlite') {
            // the transaction commits here, so the driver's own COMMIT fails: committed, but the caller cannot know
            await sql`commit`.execute(tx);
            return;
          }
          // the connection dies between the last write and COMMIT: the server rolled back, the caller cannot know
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx);
          const killer = new pg.Client({ connectionString: h.database.databaseUrl! });
          await killer.connect();
          try {
            await killer.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
            for (let i = 0; i < 200; i++) {
              const gone = await killer.query('select count(*)::int as n from pg_stat_activity where pid = $1', [rows[0]!.pid]);
              if (gone.rows[0].n === 0) break;
              await new Promise((r) => setTimeout(r, 10));
            }
          } finally {
            await killer.end();
          }
        },
      };
      let r;
      try {
        r = await send(h, a.token, { to: b.id, payload: 'did this land?' });
      } finally {
        h.ctx.seams = undefined;
      }
      expectRefusal(r, 503, 'outcome-unknown', action('outcome-unknown'));
      expect(r.body.message_id).toMatch(/^msg_[0-9a-f]{32}$/);
      // following the action: the status says what happened
      const st = await status(h, a.token, r.body.message_id);
      const after = await storeSnapshot(h);
      if (h.dialect === 'sqlite') {
        expect(st.status).toBe(200);
        expect(st.body.message.state).toBe('accepted');
        expect(after.agent_messages).toBe(before.agent_messages! + 1);
      } else {
        expect(st.status).toBe(404);
        expect(after).toEqual(before);
      }
    });

    it('when several causes apply, the first in the table wins; a retry gets its receipt before any of them', async () => {
      const h = t();
      const [a, b] = await pair(h);
      const m = await delivered(h, a, b, { ttl: 60 });
      const replied = await sent(h, b.token, { reply_to: m.id, payload: 'ok', ref: 'answer-1' });
      clock.advance(61_000);
      const stale = await reattach(h, b);
      // stale token + expired deadline + already committed: the activation comes first
      expectRefusal(await send(h, b.token, { reply_to: m.id, payload: 'again' }), 409, 'source-activation-stale', action('source-activation-stale'));
      // current token: expired deadline before already committed
      expectRefusal(await send(h, stale.token, { reply_to: m.id, payload: 'again' }), 409, 'reply-deadline-expired', action('reply-deadline-expired'));
      // the retry of the committed reply, even from the replaced token, past the deadline: its receipt
      const retry = await send(h, b.token, { reply_to: m.id, payload: 'ok', ref: 'answer-1' });
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ message: replied, replayed: true });
      // invalid envelope before a ref mismatch
      expectRefusal(await send(h, b.token, { reply_to: m.id, payload: 'ok', ref: 'answer-1', ttl: 0 }), 422, 'envelope-invalid', action('envelope-invalid'));
    });
  },
  { clock },
);
