import pg from 'pg';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { CHAIN_LOCK_KEY } from '../../src/store/dialect/postgres.js';
import { pair, send } from '../helpers/messages.js';
import { describePostgres } from '../helpers/postgres-only.js';

/**
 * On PostgreSQL a send's last statements (the chain lock, the append, the held-messages counter)
 * go out with its COMMIT (postgres-pipeline.ts). When one of them fails, the server answers the
 * COMMIT with a rollback: nothing was written and the sender is told to retry
 * (`store-unavailable`), not that the outcome is unknown (docs/design/messages.md).
 */
describePostgres('a send whose last statements fail at COMMIT', (t) => {
  it('a chain lock that times out is a rollback the sender may retry, not outcome-unknown; the retry is accepted', async () => {
    const h = t();
    const [a, b] = await pair(h);
    // another writer holds the chain lock; the send gives up waiting for it after 200 ms
    const blocker = new pg.Client({ connectionString: h.database.databaseUrl! });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select pg_advisory_xact_lock($1)', [CHAIN_LOCK_KEY]);
      h.ctx.seams = {
        afterRead: async (point, _id, tx) => {
          if (point === 'message-send' && tx) await sql`set local lock_timeout = '200ms'`.execute(tx);
        },
      };
      const refused = await send(h, a.token, { to: b.id, payload: 'held back', ref: 'lock-timeout' });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: 'store-unavailable' });
    } finally {
      h.ctx.seams = undefined;
      await blocker.query('rollback').catch(() => {});
      await blocker.end();
    }
    const written = await h.store.kysely.selectFrom('agent_messages').select('id').where('ref', '=', 'lock-timeout').execute();
    expect(written).toEqual([]);
    const retried = await send(h, a.token, { to: b.id, payload: 'held back', ref: 'lock-timeout' });
    expect(retried.status).toBe(201);
  });
});
