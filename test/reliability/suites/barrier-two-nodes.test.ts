import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAppContext } from '../../../src/app/bootstrap.js';
import type { AppContext, SeamPoint } from '../../../src/app/context.js';
import { assembleService, type Service } from '../../../src/composition.js';
import { openPostgres } from '../../../src/store/dialect/postgres.js';
import type { StoreDialect } from '../../../src/store/dialect/dialect.js';
import { Barrier } from '../../helpers/barrier.js';
import { describePostgres } from '../../helpers/postgres-only.js';
import { SCENARIOS, type RaceRequest, type RaceResponse } from '../../concurrency/scenarios.js';
import { figure, report, scaled } from '../support/load.js';

/**
 * The barrier races of test/concurrency (one table of scenarios), across two API nodes on
 * one PostgreSQL: the racers alternate between the nodes, each node with its own pool; every
 * racer reads inside its transaction, waits at one barrier shared by both nodes, then all
 * write — exactly one takes effect. Repeated ROUNDS times. (SQLite across processes:
 * test/concurrency/sqlite-processes.test.ts, in the main suite.)
 */
const ROUNDS = scaled(1, 5);

describePostgres('barrier races across two nodes', (t) => {
  const nodes: { store: StoreDialect; ctx: AppContext; service: Service }[] = [];
  let races = 0;
  let racers = 0;
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const store = openPostgres({ connectionString: t().database.databaseUrl!, maxConnections: 30 });
      const ctx = await createAppContext(store, { logger: pino({ level: 'silent' }) });
      nodes.push({ store, ctx, service: await assembleService(store, ctx, { housekeeping: false }) });
    }
  });
  afterAll(async () => {
    for (const node of nodes) {
      await node.service.stop();
      await node.store.destroy();
    }
    report(`barrier races postgres (two nodes): ${figure(races)} races (${SCENARIOS.length} scenarios × ${ROUNDS}), ${figure(racers)} racers, one effect each`);
  });

  async function send(service: Service, token: string, r: RaceRequest): Promise<RaceResponse> {
    const res = await service.app.request(r.path, {
      method: r.method,
      headers: { host: 'localhost', authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(r.headers ?? {}) },
      body: JSON.stringify(r.body),
    });
    return { status: res.status, body: await res.json() };
  }

  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: ${scenario.racers} racers on two nodes, ${ROUNDS} round(s) — exactly one takes effect each time`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { id, token } = await scenario.setup(t());
        const tag = `${scenario.name.replace(/\W+/g, '-')}-${Date.now()}-${round}`;
        const barrier = new Barrier(scenario.racers);
        for (const node of nodes) node.ctx.seams = { afterRead: async (point: SeamPoint) => (point === scenario.point ? barrier.arrive() : undefined) };
        try {
          const responses = await Promise.all(Array.from({ length: scenario.racers }, (_, i) => send(nodes[i % 2]!.service, token, scenario.request(id, tag))));
          expect(barrier.arrived).toBe(scenario.racers);
          await scenario.check(t(), id, responses, tag);
          races++;
          racers += scenario.racers;
        } finally {
          for (const node of nodes) node.ctx.seams = undefined;
        }
      }
    });
  }
});
