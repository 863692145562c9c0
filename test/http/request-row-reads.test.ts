import { expect, it } from 'vitest';
import { describeEachDialect, type Harness } from '../helpers/harness.js';
import { insertSpawnChain } from '../helpers/lineage.js';

/**
 * One request reads each session row once: the caller's own row serves the visibility, the
 * live-token check and the acting session, and a target that is the caller is not read
 * again. Reads whose permission does not depend on descent skip the ancestry climb.
 */
const ROW_READ = /^select "id", "uid", "title", .* from "sessions" where "id" = (\?|\$\d+)$/;
const ANCESTRY = /with recursive up\(id, parent_session_id/;

async function queriesOf(h: Harness, token: string, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<string[]> {
  // warm the caches a first request fills (actors), so the counted request starts alike
  await h.request(method, path, { token, body });
  h.store.queryLog.start();
  const r = await h.request(method, path, { token, body });
  const queries = h.store.queryLog.stop().filter((q) => !/from "live_events" where "id" >/.test(q));
  expect(r.status, r.text).toBeLessThan(300);
  return queries;
}

describeEachDialect('a request reads each session row once', (t) => {
  it('a follow-up to itself reads its row once; to a child, each row once; a read climbs no ancestry', async () => {
    const h = t();
    const [root, child] = await insertSpawnChain(h, 2);
    const attached = await h.request('POST', `/api/v1/sessions/${root}/attach`, { token: h.fleetKey });
    expect(attached.status, attached.text).toBe(200);
    const token = attached.body.session_token as string;

    const toSelf = await queriesOf(h, token, 'POST', `/api/v1/sessions/${root}/follow_up`, { content: 'note to self' });
    // resolving the ref reads the row; the live-token check and the acting session reuse it
    expect(toSelf.filter((q) => ROW_READ.test(q)).length, toSelf.join('\n')).toBe(1);
    const toChild = await queriesOf(h, token, 'POST', `/api/v1/sessions/${child}/follow_up`, { content: 'look at the logs' });
    // the child resolved by ref, and the caller's row once (the live-token check, reused for acting)
    expect(toChild.filter((q) => ROW_READ.test(q)).length, toChild.join('\n')).toBe(2);
    // delivering needs no descent, so no ancestry climb
    expect(toChild.filter((q) => ANCESTRY.test(q)).length).toBe(0);

    const read = await queriesOf(h, token, 'GET', `/api/v1/sessions/${child}`);
    expect(read.filter((q) => ANCESTRY.test(q)).length, read.join('\n')).toBe(0);
    // patching a child does depend on descent: exactly one climb, and the caller's row once
    const patch = await queriesOf(h, token, 'PATCH', `/api/v1/sessions/${child}`, { title: 'renamed' });
    expect(patch.filter((q) => ANCESTRY.test(q)).length, patch.join('\n')).toBe(1);
  });
});

/** The human-message page of a provenance read, and the counts beside it, by their statement text. */
const RECORD_PAGE = /from "human_messages" as "m" left join .* order by "m"\."id" desc/;
const RECORD_COUNTS = /from "human_messages" as "m" left join .* group by "m"\."session_id"/;

/** The sessions each human-message page of one GET asked for (its first bound value: JSON text on SQLite, an array on PostgreSQL). */
async function recordPagesOf(h: Harness, path: string): Promise<{ pages: number[][]; counts: number }> {
  await h.request('GET', path, { token: h.fleetKey });
  h.store.queryLog.start();
  const r = await h.request('GET', path, { token: h.fleetKey });
  const queries = h.store.queryLog.stopWithParameters();
  expect(r.status, r.text).toBe(200);
  const pages = queries
    .filter((q) => RECORD_PAGE.test(q.sql))
    .map((q) => {
      const list = q.parameters[0];
      return ((typeof list === 'string' ? JSON.parse(list) : list) as (number | string)[]).map(Number).sort((a, b) => a - b);
    });
  return { pages, counts: queries.filter((q) => RECORD_COUNTS.test(q.sql)).length };
}

describeEachDialect('a provenance read pages human messages only where there are some', (t) => {
  it('reads the counts, then a page over the sessions holding records only, and no page when none does', async () => {
    const h = t();
    const { token } = await h.human('pager');
    const root = (await h.create(token, { title: 'root', prompt: 'please look into the deploy' })).session;
    const quiet = (await h.create(h.fleetKey, { title: 'quiet', parent_session_id: root.id })).session;
    const quieter = (await h.create(h.fleetKey, { title: 'quieter', parent_session_id: quiet.id })).session;

    // three sessions in the hierarchy, one holding the human's prompt: the page asks for that one
    expect(await recordPagesOf(h, `/api/v1/sessions/${quieter.id}`)).toEqual({ pages: [[root.id]], counts: 1 });
    const r = await h.request('GET', `/api/v1/sessions/${quieter.id}`, { token: h.fleetKey });
    expect(JSON.stringify(r.body)).toContain('please look into the deploy');
    // a second session holding records joins the page
    expect((await h.request('POST', `/api/v1/sessions/${quiet.id}/follow_up`, { token, body: { content: 'and the logs' } })).status).toBeLessThan(300);
    expect(await recordPagesOf(h, `/api/v1/sessions/${quieter.id}`)).toEqual({ pages: [[root.id, quiet.id].sort((a, b) => a - b)], counts: 1 });

    // a lone session with no record: the counts, and no page at all
    const alone = (await h.create(h.fleetKey, { title: 'alone' })).session;
    expect(await recordPagesOf(h, `/api/v1/sessions/${alone.id}`)).toEqual({ pages: [], counts: 1 });
  });
});
