import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';

/**
 * The read paths' query shapes (docs/design/quality.md: per-request overhead): the roster is read once per
 * request however many places name the same user, a human token authenticates in one query,
 * and the record's lifetime comes from the walk's rows rather than another read.
 */
describeEachDialect('session read queries', (t) => {
  it('GET /sessions/:ref reads each roster row once and the credential in one query', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('reader'));
    const root = (await h.create(token, { title: 'root', prompt: 'please look', attach: true })).session;
    const child = (await h.create(token, { title: 'child', parent_session_id: root.id })).session;
    const follow = await h.request('POST', `/api/v1/sessions/${child.id}/follow_up`, { token, body: { content: 'and also this' } });
    expect(follow.status).toBeLessThan(300);

    h.store.queryLog.start();
    const res = await h.request('GET', `/api/v1/sessions/${child.id}`, { token });
    const queries = h.store.queryLog.stop();
    expect(res.status).toBe(200);
    // the owner, the nodes' owners and the author are the same user: named everywhere, read once
    expect(res.body.session.owner).not.toBeNull();
    expect(res.body.session_hierarchy.nodes.every((n: { owner: string | null }) => n.owner === res.body.session.owner)).toBe(true);
    expect(queries.filter((q) => /from "users"/.test(q))).toHaveLength(1);
    // the human token and its user: one query
    expect(queries.filter((q) => /"tokens"/.test(q))).toHaveLength(1);
    // the lifetime's start comes from the walk's rows
    expect(queries.filter((q) => /^select "created_at" from "sessions"/.test(q))).toHaveLength(0);
  });

  it('a human token whose user was removed from the roster authenticates nobody', async () => {
    const h = t();
    const key = uniqueKey('gone');
    const { token, user } = await h.human(key);
    expect((await h.request('GET', '/api/v1/sessions?limit=1', { token })).status).toBe(200);
    await h.store.kysely.updateTable('users').set({ removed_at: new Date().toISOString() }).where('id', '=', user.id).execute();
    const after = await h.request('GET', '/api/v1/sessions?limit=1', { token });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('invalid-token');
    expect(after.body.message).toMatch(/removed from the roster/);
  });
});
