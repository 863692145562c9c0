import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAppContext } from '../../src/app/bootstrap.js';
import type { AppContext } from '../../src/app/context.js';
import { assembleService, type Service } from '../../src/composition.js';
import type { StoreDialect } from '../../src/store/dialect/dialect.js';
import { openPostgres } from '../../src/store/dialect/postgres.js';
import { describeEachDialect, type Harness } from '../helpers/harness.js';
import { liveSession } from '../helpers/lineage.js';
import { delivered, pair, send } from '../helpers/messages.js';
import { describePostgres } from '../helpers/postgres-only.js';
import { Barrier } from '../helpers/barrier.js';

/**
 * docs/design/messages.md: at most one reply commits per original, and a ref delivers once — race-safe by the
 * store's unique constraints, not by luck. On PostgreSQL the racers are held at a barrier
 * inside their transactions after every read, so both really pass the checks before writing.
 */
async function replies(h: Harness, originalId: string): Promise<string[]> {
  return (await h.store.kysely.selectFrom('agent_messages').select('id').where('reply_to', '=', originalId).execute()).map((r) => r.id);
}

describeEachDialect('concurrent replies and retries', (t) => {
  it('two replies sent at once: one commits, the other is told which', async () => {
    const h = t();
    const [a, b] = await pair(h);
    const m = await delivered(h, a, b);
    const rs = await Promise.all([send(h, b.token, { reply_to: m.id, payload: 'first' }), send(h, b.token, { reply_to: m.id, payload: 'second' })]);
    expect(rs.map((r) => r.status).sort()).toEqual([201, 409]);
    const winner = rs.find((r) => r.status === 201)!.body.message.id;
    expect(rs.find((r) => r.status === 409)!.body).toMatchObject({ error: 'reply-already-committed', previous_id: winner });
    expect(await replies(h, m.id)).toEqual([winner]);
  });
});

describePostgres('agent messages at a barrier', (t) => {
  let store: StoreDialect;
  let ctx: AppContext;
  let node: Service;
  beforeAll(async () => {
    store = openPostgres({ connectionString: t().database.databaseUrl!, maxConnections: 10 });
    ctx = await createAppContext(store, { logger: pino({ level: 'silent' }) });
    node = await assembleService(store, ctx, { housekeeping: false });
  });
  afterAll(async () => {
    await node?.stop();
    await store?.destroy();
  });

  async function raced(token: string, bodies: Record<string, unknown>[]): Promise<{ status: number; body: any }[]> {
    const barrier = new Barrier(bodies.length);
    ctx.seams = { afterRead: async (point) => (point === 'message-send' ? barrier.arrive() : undefined) };
    try {
      const out = await Promise.all(
        bodies.map(async (body) => {
          const res = await node.app.request('/api/v1/messages', {
            method: 'POST',
            headers: { host: 'localhost', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          return { status: res.status, body: await res.json() };
        }),
      );
      expect(barrier.arrived).toBe(bodies.length);
      return out;
    } finally {
      ctx.seams = undefined;
    }
  }

  it('both replies pass every check, then both write: the unique constraint lets one commit', async () => {
    const h = t();
    const [a, b] = await pair(h);
    const m = await delivered(h, a, b);
    const rs = await raced(b.token, [
      { reply_to: m.id, payload: 'first' },
      { reply_to: m.id, payload: 'second' },
    ]);
    expect(rs.map((r) => r.status).sort()).toEqual([201, 409]);
    const winner = rs.find((r) => r.status === 201)!.body.message.id;
    expect(rs.find((r) => r.status === 409)!.body).toMatchObject({ error: 'reply-already-committed', previous_id: winner });
    expect(await replies(h, m.id)).toEqual([winner]);
  });

  it('the same ref sent twice at once delivers once; both get the one receipt', async () => {
    const h = t();
    const a = await liveSession(h, h.fleetKey);
    const b = await liveSession(h, h.fleetKey);
    const rs = await raced(a.token, [
      { to: b.id, payload: 'once', ref: 'race-ref' },
      { to: b.id, payload: 'once', ref: 'race-ref' },
    ]);
    expect(rs.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(rs[0]!.body.message).toEqual(rs[1]!.body.message);
    const items = await h.store.kysely.selectFrom('inbox_items').select('id').where('session_id', '=', b.id).execute();
    expect(items).toHaveLength(1);
  });
});
