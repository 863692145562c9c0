import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { insertSpawnChain } from '../helpers/lineage.js';

/**
 * Authorizing an ancestor's write walks up the spawn chain in one bounded recursive query
 * (store/lineage-repo.ts isSpawnAncestorOf), not a query per level: a PATCH of the session
 * 200 levels down costs exactly what a PATCH of the direct child costs.
 */
describeEachDialect('a PATCH by an ancestor: queries do not grow with depth', (t) => {
  it('depth 1 and depth 200 cost the same number of queries, and the write lands', async () => {
    const h = t();
    const chain = await insertSpawnChain(h, 201);
    const attached = await h.request('POST', `/api/v1/sessions/${chain[0]}/attach`, { token: h.fleetKey });
    expect(attached.status, attached.text).toBe(200);
    const rootToken = attached.body.session_token as string;

    const patchCounting = async (id: number, title: string) => {
      h.store.queryLog.start();
      const r = await h.request('PATCH', `/api/v1/sessions/${id}`, { token: rootToken, body: { title } });
      // the live-event poller runs on its own clock, and the actor cache may miss once: neither is this request's walk
      const queries = h.store.queryLog.stop().filter((q) => !/from "live_events" where "id" >/.test(q) && !/from "actors" where "kind"/.test(q));
      expect(r.status, r.text).toBe(200);
      expect(r.body.session.title).toBe(title);
      return queries;
    };
    // warm the caches a first request fills, so both measured requests start alike
    await patchCounting(chain[1]!, 'warm-up');
    const near = await patchCounting(chain[1]!, 'one level down');
    const deep = await patchCounting(chain[200]!, 'two hundred levels down');
    expect(deep.length, deep.join('\n')).toBe(near.length);
    // the ancestry is one query whichever the depth (a recursive one), never one per level
    const walkedUp = (qs: string[]) => qs.filter((q) => /with recursive/i.test(q)).length;
    expect(walkedUp(deep)).toBe(walkedUp(near));
    expect(deep.length).toBeLessThan(40);
  });
});
