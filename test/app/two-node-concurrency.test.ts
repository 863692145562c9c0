import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createAppContext } from '../../src/app/bootstrap.js';
import { assembleService, type Service } from '../../src/composition.js';
import { openStore } from '../../src/store/connect.js';
import type { StoreDialect } from '../../src/store/dialect/dialect.js';
import { pgAvailable } from '../helpers/databases.js';
import { openHarness, type Harness } from '../helpers/harness.js';
import { findCycle, liveSession, uncleRows } from '../helpers/lineage.js';

/**
 * Two API nodes (two pools on one PostgreSQL). docs/design/quality.md "Graph writes serialize": A → B and
 * B → A written at the same moment never both commit — the graph lock itself is the barrier: a
 * third connection holds it while both writers arrive; once both wait on it, it is released.
 * And the inbox's compare-and-set: one send_now takes effect once; two leases never share an item.
 */
describe.skipIf(!pgAvailable())('two API nodes on one PostgreSQL: concurrent graph writes, queue changes and leases', () => {
  let h: Harness;
  let second: { store: StoreDialect; service: Service };

  beforeAll(async () => {
    h = await openHarness('postgres');
    const store = await openStore({ databaseUrl: h.database.databaseUrl, sqliteFile: h.database.sqliteFile });
    const ctx = await createAppContext(store, { logger: pino({ level: 'silent' }) });
    second = { store, service: await assembleService(store, ctx, { housekeeping: false }) };
  });
  afterAll(async () => {
    await second?.service.stop();
    await second?.store.destroy();
    await h?.close();
  });

  const followUpOn = async (service: Service, token: string, target: number) => {
    const res = await service.app.request(`/api/v1/sessions/${target}/follow_up`, {
      method: 'POST',
      headers: { host: 'localhost', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'concurrent' }),
    });
    return { status: res.status, body: await res.json() };
  };

  async function waitingOnGraphLock(): Promise<number> {
    const r = await sql<{
      n: string;
    }>`select count(*) as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`.execute(
      h.store.kysely,
    );
    return Number(r.rows[0]!.n);
  }

  it('held at the graph lock, released together: one writes, the other inverts; never both written, never a cycle', async () => {
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = h.store.kysely.transaction().execute(async (tx) => {
      await h.store.lockGraph(tx);
      holding();
      await released;
    });
    await held;
    const first = followUpOn(h.service, a.token, b.id); // node 1: A → B
    const secondCall = followUpOn(second.service, b.token, a.id); // node 2: B → A
    // both deliveries commit without the graph lock; both writers then wait on it
    while ((await waitingOnGraphLock()) < 2) await new Promise((r) => setTimeout(r, 10));
    const inboxA = await h.request('GET', `/api/v1/sessions/${a.id}/inbox`, { token: h.fleetKey });
    const inboxB = await h.request('GET', `/api/v1/sessions/${b.id}/inbox`, { token: h.fleetKey });
    expect(inboxA.body.items).toHaveLength(1);
    expect(inboxB.body.items).toHaveLength(1);
    expect(await uncleRows(h, [a.id, b.id])).toEqual([]);
    release();
    await holder;
    const results = await Promise.all([first, secondCall]);
    expect(results.map((r) => r.status)).toEqual([201, 201]);
    expect(results.map((r) => r.body.uncle_edge.outcome).sort()).toEqual(['inverted', 'written']);
    const edges = await uncleRows(h, [a.id, b.id]);
    expect(edges).toHaveLength(1);
    expect(await findCycle(h)).toBeNull();
  });

  it('released at once, pair after pair: inverse writes never both commit as written', async () => {
    for (let i = 0; i < 8; i++) {
      const a = await liveSession(h, h.fleetKey);
      const b = await liveSession(h, h.fleetKey);
      const results = await Promise.all([followUpOn(h.service, a.token, b.id), followUpOn(second.service, b.token, a.id)]);
      if (results.some((r) => r.status !== 201)) throw new Error(JSON.stringify(results));
      const outcomes = results.map((r) => r.body.uncle_edge.outcome).sort();
      expect(outcomes).toEqual(['inverted', 'written']);
      expect(await uncleRows(h, [a.id, b.id])).toHaveLength(1);
    }
    expect(await findCycle(h)).toBeNull();
  });
  const post = async (service: Service, token: string, path: string, body: unknown = {}) => {
    const res = await service.app.request(path, {
      method: 'POST',
      headers: { host: 'localhost', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };

  it('the same send_now from two nodes at once takes effect once, with one event', async () => {
    for (let i = 0; i < 5; i++) {
      const s = await liveSession(h, h.fleetKey);
      const mid = (await h.request('POST', `/api/v1/sessions/${s.id}/enqueued_messages`, { token: h.fleetKey, body: { content: 'q' } })).body.inbox_item.id;
      const path = `/api/v1/sessions/${s.id}/enqueued_messages/${mid}/send_now`;
      const results = await Promise.all([post(h.service, h.fleetKey, path), post(second.service, h.fleetKey, path)]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      expect(results.map((r) => r.body.changed).sort()).toEqual([false, true]);
      const events = await h.request('GET', `/api/v1/sessions/${s.id}/events?type=inbox_item_promoted`, { token: h.fleetKey });
      expect(events.body.events).toHaveLength(1);
    }
  });

  it('two leases from two nodes at once never hand out the same item', async () => {
    const s = await liveSession(h, h.fleetKey);
    for (let i = 0; i < 20; i++) await h.request('POST', `/api/v1/sessions/${s.id}/follow_up`, { token: h.fleetKey, body: { content: `item ${i}` } });
    const path = `/api/v1/sessions/${s.id}/inbox/lease`;
    const [x, y] = await Promise.all([post(h.service, s.token, path, { max_items: 15 }), post(second.service, h.fleetKey, path, { max_items: 15 })]);
    const ids = [...x.body.items, ...y.body.items].map((i: any) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(20);
  });
});
