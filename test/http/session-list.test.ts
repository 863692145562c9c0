import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';

/** docs/design/surfaces.md: `GET /api/v1/sessions` — the filters `status`, `owner`, `parent`, `root`, `q`, and the cursor. */
async function list(h: Harness, query: string, token = h.fleetKey): Promise<{ ids: number[]; next: string | null; status: number; body: any }> {
  const r = await h.request('GET', `/api/v1/sessions?${query}`, { token });
  return {
    ids: r.status === 200 ? r.body.sessions.map((s: any) => s.id) : [],
    next: r.status === 200 ? r.body.next_cursor : null,
    status: r.status,
    body: r.body,
  };
}

/** Every id of a filtered listing, following the cursor page by page. */
async function all(h: Harness, query: string, limit: number): Promise<{ ids: number[]; pages: number }> {
  const ids: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await list(h, `${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    expect(page.ids.length).toBeLessThanOrEqual(limit);
    ids.push(...page.ids);
    cursor = page.next;
    pages++;
  } while (cursor !== null && pages < 100);
  return { ids, pages };
}

describeEachDialect('GET /api/v1/sessions: filters and cursor (docs/design/surfaces.md)', (t) => {
  it('q matches the title case-insensitively and literally (% and _ are not wildcards)', async () => {
    const h = t();
    const tag = uniqueKey('Qtag').replace(/-/g, '');
    const a = (await h.create(h.fleetKey, { title: `Fix ${tag} login` })).session.id;
    const b = (await h.create(h.fleetKey, { title: `${tag.toUpperCase()} again` })).session.id;
    await h.create(h.fleetKey, { title: 'unrelated' });
    expect((await list(h, `q=${tag.toLowerCase()}`)).ids).toEqual([b, a]);
    const pct = (await h.create(h.fleetKey, { title: `${tag} 50%_off` })).session.id;
    await h.create(h.fleetKey, { title: `${tag} 50xxoff` });
    expect((await list(h, `q=${encodeURIComponent('50%_off')}`)).ids).toEqual([pct]);
  });

  it('status takes a comma-separated list; an unknown status is a 400 naming the field', async () => {
    const h = t();
    const tag = uniqueKey('st').replace(/-/g, '');
    const pending = (await h.create(h.fleetKey, { title: `${tag} pending` })).session.id;
    const stopped = (await h.create(h.fleetKey, { title: `${tag} stopped` })).session.id;
    await h.request('POST', `/api/v1/sessions/${stopped}/stop`, { token: h.fleetKey, body: {} });
    const archived = (await h.create(h.fleetKey, { title: `${tag} archived` })).session.id;
    await h.request('POST', `/api/v1/sessions/${archived}/archive`, { token: h.fleetKey, body: {} });
    expect((await list(h, `q=${tag}&status=stopped`)).ids).toEqual([stopped]);
    expect((await list(h, `q=${tag}&status=stopped,archived`)).ids).toEqual([archived, stopped]);
    expect((await list(h, `q=${tag}&status=pending`)).ids).toEqual([pending]);
    expect((await list(h, `q=${tag}`)).ids).toEqual([archived, stopped, pending]);
    const bad = await list(h, 'status=sleeping');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid-request', field: 'status' });
  });

  it('owner names a roster key (none: unowned); an unknown key lists nothing', async () => {
    const h = t();
    const tag = uniqueKey('ow').replace(/-/g, '');
    const alice = await h.human(uniqueKey('alice'));
    const bob = await h.human(uniqueKey('bob'));
    const a = (await h.create(alice.token, { title: `${tag} a` })).session.id;
    const b = (await h.create(bob.token, { title: `${tag} b` })).session.id;
    const none = (await h.create(h.fleetKey, { title: `${tag} none` })).session.id;
    expect((await list(h, `q=${tag}&owner=${alice.user.key}`)).ids).toEqual([a]);
    expect((await list(h, `q=${tag}&owner=${bob.user.key}`)).ids).toEqual([b]);
    expect((await list(h, `q=${tag}&owner=none`)).ids).toEqual([none]);
    expect((await list(h, `q=${tag}&owner=nobody-by-this-key`)).ids).toEqual([]);
  });

  it('parent lists the spawn children of one session (by #id or uid, and through the legacy key); root lists only parentless sessions', async () => {
    const h = t();
    const tag = uniqueKey('pa').replace(/-/g, '');
    const p = (await h.create(h.fleetKey, { title: `${tag} parent` })).session;
    const c1 = (await h.create(h.fleetKey, { title: `${tag} child 1`, parent_session_id: p.id })).session.id;
    const c2 = (await h.create(h.fleetKey, { title: `${tag} child 2`, parent_session_id: p.id })).session.id;
    const grandchild = (await h.create(h.fleetKey, { title: `${tag} grandchild`, parent_session_id: c1 })).session.id;
    const legacy = (await h.create(h.fleetKey, { title: `${tag} legacy child`, custom_metadata: { router_session_id: String(p.id) } })).session;
    expect(legacy.parent_basis).toBe('legacy');
    const other = (await h.create(h.fleetKey, { title: `${tag} other root` })).session.id;
    expect((await list(h, `parent=${encodeURIComponent(`#${p.id}`)}`)).ids).toEqual([legacy.id, c2, c1]);
    expect((await list(h, `parent=${encodeURIComponent(`uid:${p.uid}`)}`)).ids).toEqual([legacy.id, c2, c1]);
    expect((await list(h, `parent=${c1}`)).ids).toEqual([grandchild]);
    expect((await list(h, `q=${tag}&root=true`)).ids).toEqual([other, p.id]);
    expect((await list(h, `q=${tag}&root=false`)).ids).toEqual([other, legacy.id, grandchild, c2, c1, p.id]);
    const missing = await list(h, 'parent=999999999');
    expect([missing.status, missing.body.error]).toEqual([404, 'session-not-found']);
  });

  it('the cursor pages through a filtered listing newest first, each session once, and the last page says so', async () => {
    const h = t();
    const tag = uniqueKey('cur').replace(/-/g, '');
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push((await h.create(h.fleetKey, { title: `${tag} ${i}` })).session.id);
    await h.create(h.fleetKey, { title: 'noise between pages' });
    const paged = await all(h, `q=${tag}`, 3);
    expect(paged.ids).toEqual([...ids].reverse());
    expect(paged.pages).toBe(3);
    // filters ride along with the cursor: stop two, and page the stopped ones two at a time
    for (const id of [ids[1]!, ids[4]!]) await h.request('POST', `/api/v1/sessions/${id}/stop`, { token: h.fleetKey, body: {} });
    expect((await all(h, `q=${tag}&status=stopped`, 1)).ids).toEqual([ids[4], ids[1]]);
    // exactly a page's worth: no empty extra page
    const exact = await list(h, `q=${tag}&limit=7`);
    expect(exact.ids).toHaveLength(7);
    expect(exact.next).toBeNull();
    const bad = await list(h, 'cursor=not-a-cursor');
    expect(bad.status).toBe(400);
  });

  it("multi-user scoping applies under every filter: a human never lists another owner's sessions", async () => {
    const { openHarness } = await import('../helpers/harness.js');
    const h = await openHarness(t().dialect, { mode: 'multi-user' });
    try {
      const alice = await h.human(uniqueKey('alice'));
      const bob = await h.human(uniqueKey('bob'));
      const hers = (await h.create(alice.token, { title: 'scoped alice' })).session.id;
      const his = (await h.create(bob.token, { title: 'scoped bob' })).session.id;
      expect((await list(h, 'q=scoped', bob.token)).ids).toEqual([his]);
      expect((await list(h, `owner=${alice.user.key}`, bob.token)).ids).toEqual([]);
      expect((await list(h, 'q=scoped', h.fleetKey)).ids).toEqual([his, hers]);
    } finally {
      await h.close();
    }
  });
});
