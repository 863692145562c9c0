import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAppContext } from '../../src/app/bootstrap.js';
import type { AppContext, SeamPoint } from '../../src/app/context.js';
import { assembleService, type Service } from '../../src/composition.js';
import { openPostgres } from '../../src/store/dialect/postgres.js';
import type { StoreDialect } from '../../src/store/dialect/dialect.js';
import { describePostgres } from '../helpers/postgres-only.js';
import { SCENARIOS, type RaceRequest, type RaceResponse } from './scenarios.js';
import { Barrier } from '../helpers/barrier.js';

/**
 * PostgreSQL with a real pool: every racer's transaction reads the session, then waits at a
 * barrier inside the transaction (the use case's test seam) until all have read; only then do
 * they write. So the transactions really overlap, and compare-and-set must leave one event.
 */
describePostgres('concurrency at a barrier', (t) => {
  let store: StoreDialect;
  let ctx: AppContext;
  let node: Service;
  beforeAll(async () => {
    // a node of its own with a pool larger than the largest race, so every racer holds a connection
    store = openPostgres({ connectionString: t().database.databaseUrl!, maxConnections: 30 });
    ctx = await createAppContext(store, { logger: pino({ level: 'silent' }) });
    node = await assembleService(store, ctx, { housekeeping: false });
  });
  afterAll(async () => {
    await node?.stop();
    await store?.destroy();
  });

  async function send(token: string, r: RaceRequest): Promise<RaceResponse> {
    const res = await node.app.request(r.path, {
      method: r.method,
      headers: { host: 'localhost', authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(r.headers ?? {}) },
      body: JSON.stringify(r.body),
    });
    return { status: res.status, body: await res.json() };
  }

  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: all read, then all write — exactly one takes effect`, async () => {
      const h = t();
      const { id, token } = await scenario.setup(h);
      const tag = `${scenario.name.replace(/\W+/g, '-')}-${Date.now()}`;
      const barrier = new Barrier(scenario.racers);
      ctx.seams = { afterRead: async (point: SeamPoint) => (point === scenario.point ? barrier.arrive() : undefined) };
      try {
        const responses = await Promise.all(Array.from({ length: scenario.racers }, () => send(token, scenario.request(id, tag))));
        expect(barrier.arrived).toBe(scenario.racers);
        await scenario.check(h, id, responses, tag);
      } finally {
        ctx.seams = undefined;
      }
    });
  }
});
