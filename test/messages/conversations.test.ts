import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeEachDialect, ManualClock, uniqueKey, type Harness } from '../helpers/harness.js';
import { eventsOf, liveSession } from '../helpers/lineage.js';
import { reportConversation, storeSnapshot } from '../helpers/messages.js';

/** docs/design/messages.md "Provider conversation history". */
const clock = new ManualClock();
const conversations = async (h: Harness, id: number, token = h.fleetKey) =>
  (await h.request('GET', `/api/v1/sessions/${id}/conversations`, { token })).body.conversations;
const rowsOf = async (h: Harness, id: number) =>
  h.store.kysely.selectFrom('session_conversations').selectAll().where('session_id', '=', id).orderBy('id').execute();
const estimate = (h: Harness, token: string, body: Record<string, unknown>) =>
  h.request('POST', '/api/v1/conversations/estimated', { token, body: { provider: 'claude-code', ...body } });

describeEachDialect(
  'provider conversation history (docs/design/messages.md)',
  (t) => {
    it('a committed binding appends one row, runtime-reported with a session token and declared with a fleet key; re-observing appends nothing; moving keeps the one it left', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey, { title: 'worker' });
      const first = await reportConversation(h, s.token, s.id, 'c-1', { transcript_path: '/home/u/.claude/projects/p/c-1.jsonl' });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        session_id: s.id,
        provider: 'claude-code',
        conversation_id: 'c-1',
        transcript_path: '/home/u/.claude/projects/p/c-1.jsonl',
        changed: true,
        previous_conversation: null,
        source: 'runtime-reported',
      });
      const session = (await h.request('GET', `/api/v1/sessions/${s.id}`, { token: h.fleetKey })).body.session;
      expect(session).toMatchObject({ provider: 'claude-code', provider_conversation: 'c-1' });
      const [changed] = await eventsOf(h, s.id, 'conversation_changed');
      expect(changed).toMatchObject({
        details: { provider: 'claude-code', old: null, new: 'c-1', source: 'runtime-reported' },
        actor: { kind: 'session', ref: String(s.id), basis: 'authenticated' },
      });

      clock.advance(1000);
      const before = await storeSnapshot(h);
      const again = await reportConversation(h, s.token, s.id, 'c-1', { transcript_path: '/elsewhere/c-1.jsonl' });
      expect(again.body).toMatchObject({ changed: false, source: null });
      expect(await storeSnapshot(h)).toEqual(before);

      clock.advance(1000);
      expect((await reportConversation(h, h.fleetKey, s.id, 'c-2')).body).toMatchObject({ changed: true, previous_conversation: 'c-1', source: 'declared' });
      clock.advance(1000);
      expect((await reportConversation(h, s.token, s.id, 'c-1', { transcript_path: '/home/u/.claude/projects/p/c-1.jsonl' })).body.changed).toBe(true);
      expect((await rowsOf(h, s.id)).map((r) => [r.conversation_id, r.source])).toEqual([
        ['c-1', 'runtime-reported'],
        ['c-2', 'declared'],
        ['c-1', 'runtime-reported'],
      ]);
      const list = await conversations(h, s.id);
      expect(list.map((c: any) => [c.conversation_id, c.status, c.observations])).toEqual([
        ['c-1', 'current', 2],
        ['c-2', 'observed', 1],
      ]);
      expect(list[0]).toMatchObject({
        provider: 'claude-code',
        observed_at: clock.now().toISOString(),
        transcript_path: '/home/u/.claude/projects/p/c-1.jsonl',
        sources: ['runtime-reported'],
      });
      expect(list[1]).toMatchObject({ status: 'observed', sources: ['declared'] });
      const md = await h.request('GET', `/api/v1/sessions/${s.id}/conversations?format=markdown`, { token: h.fleetKey });
      expect(md.text).toContain('c-1 (claude-code) — current, source: runtime-reported');
      expect(md.text).toContain('c-2 (claude-code) — earlier, source: declared');
    });

    it("a report whose provider contradicts the session's is refused (409 provider-mismatch) and changes nothing", async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey, { provider: 'codex' });
      const before = await storeSnapshot(h);
      const r = await reportConversation(h, s.token, s.id, 'c-x');
      expect([r.status, r.body.error]).toEqual([409, 'provider-mismatch']);
      expect(await storeSnapshot(h)).toEqual(before);
      expect(
        (await h.request('POST', `/api/v1/sessions/${s.id}/conversation`, { token: s.token, body: { provider: 'codex', conversation_id: 'c-x' } })).status,
      ).toBe(200);
    });

    it('reported by the session itself, fleet supervisors or admins only; input is checked', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const other = await liveSession(h, h.fleetKey);
      const human = await h.human(uniqueKey());
      const admin = await h.human(uniqueKey('admin'), { admin: true });
      expect((await reportConversation(h, other.token, s.id, 'nope')).body.error).toBe('forbidden');
      expect((await reportConversation(h, human.token, s.id, 'nope')).body.error).toBe('forbidden');
      expect((await reportConversation(h, admin.token, s.id, 'by-admin')).status).toBe(200);
      for (const body of [
        { provider: 'claude-code' },
        { provider: 'claude-code', conversation_id: '' },
        { provider: '', conversation_id: 'x' },
        { provider: 'claude-code', conversation_id: 'a\nb' },
        { provider: 'claude-code', conversation_id: 'x'.repeat(501) },
      ]) {
        const r = await h.request('POST', `/api/v1/sessions/${s.id}/conversation`, { token: s.token, body });
        expect([r.status, r.body.error], JSON.stringify(body).slice(0, 60)).toEqual([400, 'invalid-request']);
      }
    });

    it('the server never opens a reported transcript path: a FIFO that would block a reader is just a string', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const dir = mkdtempSync(join(tmpdir(), 'warrant-fifo-'));
      const fifo = join(dir, 'transcript.jsonl');
      execFileSync('mkfifo', [fifo]);
      try {
        const r = await reportConversation(h, s.token, s.id, 'c-fifo', { transcript_path: fifo });
        expect(r.body).toMatchObject({ changed: true, transcript_path: fifo });
        const weird = '../../etc/shadow; rm -rf / `$(id)`';
        expect((await reportConversation(h, s.token, s.id, 'c-weird', { transcript_path: weird })).body.transcript_path).toBe(weird);
        expect((await conversations(h, s.id))[0].transcript_path).toBe(weird);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('rows carry an affiliation snapshot (title, owner, origin = highest spawn ancestor) and outlive the session', async () => {
      const h = t();
      const key = uniqueKey('owner');
      const owner = await h.human(key, { admin: true });
      const root = (await h.create(owner.token, { title: 'root' })).session;
      const mid = (await h.create(h.fleetKey, { title: 'mid', parent_session_id: root.id })).session;
      const leaf = await h.create(h.fleetKey, { title: 'leaf', parent_session_id: mid.id, attach: true });
      expect(leaf.session.owner).toBe(key);
      await reportConversation(h, leaf.session_token, leaf.session.id, 'c-leaf');
      const created = (await h.create(h.fleetKey, { title: 'born bound', provider: 'claude-code', provider_conversation: 'c-born' })).session;
      expect((await rowsOf(h, created.id)).map((r) => [r.conversation_id, r.source, r.title])).toEqual([['c-born', 'declared', 'born bound']]);
      // a session token creating a child already bound reports with its token: runtime-reported (docs/design/messages.md: the credential decides)
      const child = (await h.create(leaf.session_token, { title: 'child bound', provider: 'claude-code', provider_conversation: 'c-child' })).session;
      expect((await rowsOf(h, child.id)).map((r) => r.source)).toEqual(['runtime-reported']);

      expect((await h.request('DELETE', `/api/v1/sessions/${leaf.session.id}`, { token: owner.token })).status).toBe(200);
      const rows = await rowsOf(h, leaf.session.id);
      expect(
        rows.map((r) => ({
          conversation_id: r.conversation_id,
          title: r.title,
          owner: r.owner_user_id === null ? null : Number(r.owner_user_id),
          origin: Number(r.origin_id),
        })),
      ).toEqual([{ conversation_id: 'c-leaf', title: 'leaf', owner: owner.user.id, origin: root.id }]);
    });

    it('estimated conversations: admins only; idempotent under a lock; never over an observation; merged as estimated only when every row is', async () => {
      const h = t();
      const admin = await h.human(uniqueKey('admin'), { admin: true });
      const human = await h.human(uniqueKey());
      const s = await liveSession(h, h.fleetKey);
      await reportConversation(h, s.token, s.id, 'c-seen');
      await reportConversation(h, s.token, s.id, 'c-now');
      for (const token of [h.fleetKey, human.token, s.token])
        expect((await estimate(h, token, { session_id: s.id, conversation_id: 'c-old' })).body.error).toBe('forbidden');

      // two backfills racing: one appends, the other finds it
      const raced = await Promise.all([
        estimate(h, admin.token, { session_id: s.id, conversation_id: 'c-old', transcript_path: '/t/c-old.jsonl' }),
        estimate(h, admin.token, { session_id: s.id, conversation_id: 'c-old', transcript_path: '/t/c-old.jsonl' }),
      ]);
      expect(raced.map((r) => r.body.outcome).sort()).toEqual(['already_estimated', 'attributed']);
      expect((await estimate(h, admin.token, { session_id: s.id, conversation_id: 'c-old' })).body.outcome).toBe('already_estimated');
      expect((await estimate(h, admin.token, { session_id: s.id, conversation_id: 'c-now' })).body.outcome).toBe('skipped_observed');
      expect((await estimate(h, admin.token, { session_id: s.id, conversation_id: 'c-seen' })).body.outcome).toBe('skipped_observed');
      expect((await rowsOf(h, s.id)).map((r) => [r.conversation_id, r.source])).toEqual([
        ['c-seen', 'runtime-reported'],
        ['c-now', 'runtime-reported'],
        ['c-old', 'estimated'],
      ]);
      expect((await conversations(h, s.id)).map((c: any) => [c.conversation_id, c.status])).toEqual([
        ['c-now', 'current'],
        ['c-old', 'estimated'],
        ['c-seen', 'observed'],
      ]);
      // a session later reported in an estimated conversation: the report wins
      await reportConversation(h, s.token, s.id, 'c-old');
      await reportConversation(h, s.token, s.id, 'c-next');
      expect((await conversations(h, s.id)).find((c: any) => c.conversation_id === 'c-old')).toMatchObject({
        status: 'observed',
        sources: ['runtime-reported', 'estimated'],
      });

      const codex = await liveSession(h, h.fleetKey, { provider: 'codex' });
      expect((await estimate(h, admin.token, { session_id: codex.id, conversation_id: 'c-1' })).body.error).toBe('provider-mismatch');
      expect((await estimate(h, admin.token, { session_id: 999_999_999, conversation_id: 'c-1' })).status).toBe(404);
    });

    it('rows recorded before reports were told apart keep their `observed` source: shown as they were, and still never overridden by an estimate', async () => {
      const h = t();
      const admin = await h.human(uniqueKey('admin'), { admin: true });
      const s = await liveSession(h, h.fleetKey, { title: 'legacy' });
      // what an older Warrant wrote (a hook or MCP report — the row cannot say which)
      await h.store.kysely
        .insertInto('session_conversations')
        .values({
          session_id: s.id,
          provider: 'claude-code',
          conversation_id: 'c-legacy',
          transcript_path: null,
          observed_at: clock.now().toISOString(),
          source: 'observed',
          title: 'legacy',
          owner_user_id: null,
          origin_id: s.id,
          recorded_by_actor_id: null,
          actor_basis: null,
          credential_id: null,
        })
        .execute();
      await reportConversation(h, s.token, s.id, 'c-new');
      expect((await conversations(h, s.id)).map((c: any) => [c.conversation_id, c.status, c.sources])).toEqual([
        ['c-new', 'current', ['runtime-reported']],
        ['c-legacy', 'observed', ['observed']],
      ]);
      expect((await estimate(h, admin.token, { session_id: s.id, conversation_id: 'c-legacy' })).body.outcome).toBe('skipped_observed');
      expect((await rowsOf(h, s.id)).map((r) => r.source)).toEqual(['observed', 'runtime-reported']);
    });
  },
  { clock },
);
