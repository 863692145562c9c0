import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';

async function messagesOf(h: Harness, sessionId: number) {
  return h.store.kysely.selectFrom('human_messages').selectAll().where('session_id', '=', sessionId).orderBy('id').execute();
}

describeEachDialect('human-message capture at the authenticated boundary (docs/design/capture.md)', (t) => {
  it('a human token over REST records its new session as cli.new_session, with the human as author', async () => {
    const h = t();
    const { token, user } = await h.human(uniqueKey('cap'), { displayName: 'Cap Human' });
    const s = (await h.create(token, { prompt: 'Please fix the login page', title: 'login' })).session;
    const [m, ...rest] = await messagesOf(h, s.id);
    expect(rest).toHaveLength(0);
    expect(m).toMatchObject({ entry_point: 'cli.new_session', channel: 'cli', content: 'Please fix the login page', author_key: user.key });
    const events = (await h.request('GET', `/api/v1/sessions/${s.id}/events`, { token })).body.events;
    expect(events.find((e: any) => e.type === 'human_message')).toMatchObject({
      actor: { kind: 'human', ref: user.key, basis: 'authenticated' },
      cause: { kind: 'human', basis: 'authenticated' },
    });
    // the original (unwrapped) ask wins over the composed prompt
    const s2 = (await h.create(token, { prompt: 'SYSTEM WRAPPER\nhuman: do X', original_prompt: 'do X' })).session;
    expect((await messagesOf(h, s2.id))[0]!.content).toBe('do X');
  });

  it('records nothing for the fleet key, a session token (a router-composed spawn prompt), or anything over MCP', async () => {
    const h = t();
    const fleet = (await h.create(h.fleetKey, { prompt: 'fleet words' })).session;
    expect(await messagesOf(h, fleet.id)).toHaveLength(0);
    const router = await h.create(h.fleetKey, { title: 'router', attach: true });
    const spawned = (await h.create(router.session_token, { prompt: 'The human said: please do X' })).session;
    expect(await messagesOf(h, spawned.id)).toHaveLength(0);
    const { token } = await h.human(uniqueKey('mcp'));
    const client = await mcpClient(h, token);
    const viaMcp = await callTool(client, 'start_session', { prompt: 'typed by a model holding my token' });
    await client.close();
    expect(viaMcp.data.session.creator_basis).toBe('delegated');
    expect(await messagesOf(h, viaMcp.data.session.id)).toHaveLength(0);
  });

  it('the database refuses UPDATE and direct DELETE of a human message; the session delete cascades and is counted', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('immut'), { admin: true });
    const s = (await h.create(token, { prompt: 'immutable words' })).session;
    const [m] = await messagesOf(h, s.id);
    await expect(h.store.kysely.updateTable('human_messages').set({ content: 'forged' }).where('id', '=', m!.id).execute()).rejects.toThrow(/immutable/);
    await expect(h.store.kysely.deleteFrom('human_messages').where('id', '=', m!.id).execute()).rejects.toThrow(/immutable/);
    expect((await messagesOf(h, s.id))[0]!.content).toBe('immutable words');
    const del = await h.request('DELETE', `/api/v1/sessions/${s.id}`, { token });
    expect(del.status).toBe(200);
    expect(del.body.deletion.human_message_count).toBe(1);
    expect(await messagesOf(h, s.id)).toHaveLength(0);
    // the audit log keeps a keyed digest of the words, never the words
    const audit = await h.store.kysely.selectFrom('audit_log').select('entry').execute();
    const entry = audit.map((r) => JSON.parse(r.entry)).find((e) => e.kind === 'human_message' && e.session_id === s.id);
    expect(entry.content_hmac).toMatch(/^[0-9a-f]{64}$/);
    expect(audit.map((r) => r.entry).join('\n')).not.toContain('immutable words');
  });

  it('the database refuses UPDATE and direct DELETE of a withdrawal; the withdrawal survives and goes only with its session', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('withdraw'), { admin: true });
    const s = (await h.create(token, { title: 'queue' })).session;
    const q = await h.request('POST', `/api/v1/sessions/${s.id}/enqueued_messages`, { token, body: { content: 'said, then taken back' } });
    expect(q.status).toBe(201);
    expect((await h.request('DELETE', `/api/v1/sessions/${s.id}/enqueued_messages/${q.body.inbox_item.id}`, { token })).status).toBe(200);
    const withdrawals = () => h.store.kysely.selectFrom('human_message_withdrawals').selectAll().where('session_id', '=', s.id).execute();
    const [w, ...more] = await withdrawals();
    expect(more).toHaveLength(0);
    expect(w).toBeDefined();
    await expect(
      h.store.kysely.updateTable('human_message_withdrawals').set({ created_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', w!.id).execute(),
    ).rejects.toThrow(/immutable/);
    await expect(h.store.kysely.updateTable('human_message_withdrawals').set({ actor_id: null }).where('id', '=', w!.id).execute()).rejects.toThrow(
      /immutable/,
    );
    await expect(h.store.kysely.deleteFrom('human_message_withdrawals').where('id', '=', w!.id).execute()).rejects.toThrow(/immutable/);
    expect(await withdrawals()).toEqual([w]);
    // still rendered as withdrawn
    expect((await h.request('GET', `/api/v1/sessions/${s.id}/provenance?format=markdown`, { token })).text).toContain('WITHDRAWN');
    // the session's own deletion takes the message and its withdrawal with it
    expect((await h.request('DELETE', `/api/v1/sessions/${s.id}`, { token })).status).toBe(200);
    expect(await withdrawals()).toEqual([]);
  });

  it('a capture whose insert fails makes the create fail with nothing written', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('fail'));
    const failing =
      h.dialect === 'sqlite'
        ? [sql`create trigger fail_capture before insert on human_messages when new.content = 'make it fail' begin select raise(abort, 'capture failed'); end`]
        : [
            sql`create or replace function fail_capture() returns trigger language plpgsql as $$ begin if new.content = 'make it fail' then raise exception 'capture failed'; end if; return new; end $$`,
            sql`create trigger fail_capture before insert on human_messages for each row execute function fail_capture()`,
          ];
    for (const stmt of failing) await stmt.execute(h.store.kysely);
    try {
      const before = await h.store.kysely
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const r = await h.request('POST', '/api/v1/sessions', { token, body: { prompt: 'make it fail', title: 'doomed' } });
      expect(r.status).toBeGreaterThanOrEqual(500);
      expect(r.body.error).toBeTypeOf('string');
      const after = await h.store.kysely
        .selectFrom('sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
      expect(await h.store.kysely.selectFrom('sessions').select('id').where('title', '=', 'doomed').execute()).toHaveLength(0);
    } finally {
      await sql.raw(h.dialect === 'sqlite' ? 'drop trigger fail_capture' : 'drop trigger fail_capture on human_messages').execute(h.store.kysely);
    }
  });

  it('a renamed roster key keeps naming the human on old messages, and keeps the key it was captured under', async () => {
    const h = t();
    const key = uniqueKey('renamed');
    const { token } = await h.human(key, { displayName: 'Rena Med' });
    const s = (await h.create(token, { prompt: 'before the rename' })).session;
    const { renameUser } = await import('../../src/app/roster.js');
    const { systemCaller } = await import('../../src/app/caller.js');
    await renameUser(h.ctx, systemCaller('cli'), key, `${key}-new`);
    const [m] = await messagesOf(h, s.id);
    expect(m!.author_key).toBe(key);
    const events = (await h.request('GET', `/api/v1/sessions/${s.id}/events`, { token: h.fleetKey })).body.events;
    expect(events.find((e: any) => e.type === 'human_message').actor).toMatchObject({ kind: 'human', ref: `${key}-new`, display_name: 'Rena Med' });
  });
});
