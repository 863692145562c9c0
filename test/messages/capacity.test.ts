import { expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { reclaimMessagePayloads } from '../../src/app/messages/message-retention.js';
import { changeSetting } from '../../src/app/settings.js';
import { MESSAGE_REFUSALS } from '../../src/core/message-refusals.js';
import { withoutResultUnused } from '../../src/store/dialect/dialect.js';
import { describeEachDialect, type Harness } from '../helpers/harness.js';
import { leaseAndAck, pair, refusedWithoutWrites, send, sent } from '../helpers/messages.js';

/**
 * docs/design/messages.md: payloads are reclaimed at a configurable capacity; a send that finds the store at
 * capacity with nothing reclaimable is `store-capacity`. Its own suite: capacity is global.
 */
const held = async (h: Harness) =>
  Number((await h.store.kysely.selectFrom('counters').select('value').where('name', '=', 'agent_messages_held').executeTakeFirstOrThrow()).value);
const payloads = async (h: Harness, ids: string[]) =>
  (await h.store.kysely.selectFrom('agent_messages').select(['id', 'payload']).where('id', 'in', ids).orderBy('seq').execute()).map((r) => r.payload);

describeEachDialect('the message store capacity (docs/design/messages.md)', (t) => {
  it('at capacity with nothing reclaimable a send is refused (store-capacity); once messages are terminal the oldest payloads make room', async () => {
    const h = t();
    const admin = systemCaller('cli');
    await expect(changeSetting(h.ctx, admin, 'message_store_capacity', '0')).rejects.toMatchObject({ token: 'invalid-setting' });
    await expect(changeSetting(h.ctx, admin, 'message_store_capacity', 'lots')).rejects.toMatchObject({ token: 'invalid-setting' });
    await changeSetting(h.ctx, admin, 'message_store_capacity', '3');
    const [a, b] = await pair(h);
    const first = [];
    for (const payload of ['one', 'two', 'three']) first.push(await sent(h, a.token, { to: b.id, payload }));
    expect(await held(h)).toBe(3);

    const r = await refusedWithoutWrites(
      h,
      () => send(h, a.token, { to: b.id, payload: 'four' }),
      503,
      'store-capacity',
      MESSAGE_REFUSALS['store-capacity'].action,
    );
    expect(r.body).toMatchObject({ held: 3, capacity: 3 });
    // a retry of an accepted message still gets its receipt at capacity
    expect((await send(h, a.token, { to: b.id, payload: 'one', ref: first[0].ref })).status).toBe(200);

    await leaseAndAck(h, b);
    const fourth = await sent(h, a.token, { to: b.id, payload: 'four' });
    expect(await held(h)).toBe(3);
    expect(await payloads(h, [...first.map((m) => m.id), fourth.id])).toEqual([null, 'two', 'three', 'four']);

    // lowering the capacity: housekeeping reclaims the oldest terminal payloads down to it
    await changeSetting(h.ctx, admin, 'message_store_capacity', '2');
    expect(await reclaimMessagePayloads(h.ctx)).toEqual({ retention: 0, capacity: 1 });
    expect(await payloads(h, [...first.map((m) => m.id), fourth.id])).toEqual([null, null, 'three', 'four']);
    // the rest are not terminal yet ('four' is accepted): housekeeping cannot go lower
    await changeSetting(h.ctx, admin, 'message_store_capacity', '1');
    expect(await reclaimMessagePayloads(h.ctx)).toEqual({ retention: 0, capacity: 1 });
    expect(await payloads(h, [fourth.id])).toEqual(['four']);
    expect(await held(h)).toBe(1);
  });

  it('every writer of the held-messages counter takes it after the audit append: one lock order, so a send that reclaims and one that does not never deadlock', async () => {
    // PostgreSQL: a reclaiming send that held the counter while it waited for the chain lock,
    // beside a plain send that held the chain lock while it waited for the counter, was a deadlock
    const h = t();
    const admin = systemCaller('cli');
    // capacity is global: room for two more than the suite's earlier tests left held
    const start = await held(h);
    await changeSetting(h.ctx, admin, 'message_store_capacity', String(start + 2));
    const [a, b] = await pair(h);
    await sent(h, a.token, { to: b.id, payload: 'one' });
    await leaseAndAck(h, b);
    await h.ctx.live.settle();
    const statementsOf = async (write: () => Promise<unknown>) => {
      h.store.queryLog.start();
      await write();
      // the live hub reads committed events on another connection: not part of the transaction
      return h.store.queryLog
        .stopWithParameters()
        .map((q) => ({ ...q, sql: withoutResultUnused(q.sql) }))
        .filter((q) => !q.sql.startsWith('select * from "live_events"'));
    };
    const appendsAudit = (sql: string) => /^insert into "?audit_log"?/i.test(sql) || (/^with /i.test(sql) && sql.includes('insert into audit_log'));
    const heldCounterWrites = (log: { sql: string; parameters: readonly unknown[] }[]) =>
      log.flatMap((q, i) => (/^update "counters"/.test(q.sql) && q.parameters.includes('agent_messages_held') ? [i] : []));
    const expectCounterAfterAppend = (log: { sql: string; parameters: readonly unknown[] }[], writes: number) => {
      const append = log.findLastIndex((q) => appendsAudit(q.sql));
      expect(append).toBeGreaterThan(0);
      const counter = heldCounterWrites(log);
      expect(counter).toHaveLength(writes);
      for (const i of counter) expect(i).toBeGreaterThan(append);
    };

    // below capacity: the +1 alone
    expectCounterAfterAppend(await statementsOf(() => sent(h, a.token, { to: b.id, payload: 'two' })), 1);
    // at capacity: the send reclaims 'one' (-1) and holds 'three' (+1), both after its append
    expectCounterAfterAppend(await statementsOf(() => sent(h, a.token, { to: b.id, payload: 'three' })), 2);
    expect(await held(h)).toBe(start + 2);
    // housekeeping reclaims under the same order
    await leaseAndAck(h, b);
    await changeSetting(h.ctx, admin, 'message_store_capacity', String(start + 1));
    await h.ctx.live.settle();
    expectCounterAfterAppend(await statementsOf(() => reclaimMessagePayloads(h.ctx)), 1);
    expect(await held(h)).toBe(start + 1);
  });
});
