import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { auditHead, insertAuditRows, insertAuditRowsOnHead, type AuditRow } from '../../src/store/audit-repo.js';
import { insertLiveEventsAndAuditOnHead, liveEventsAfter, oldestAndNewestLiveEventId } from '../../src/store/live-repo.js';

/** The remembered-head append writes only on the log's real last entry, and nothing otherwise. */
describeEachDialect('audit append on a remembered head', (t) => {
  it('appends on the current head; refuses an older head, a wrong hash and a head past the end, writing nothing', async () => {
    const h = t();
    const db = h.store.kysely;
    const head = (await auditHead(db))!;
    const row = (seq: number, prevHash: string): AuditRow => ({ seq, entry: `{"bench":${seq}}`, prevHash, hash: `h${seq}` });
    // another node appends two entries behind this process's back
    await db.transaction().execute((tx) => insertAuditRows(tx, [row(head.seq + 1, head.hash), row(head.seq + 2, `h${head.seq + 1}`)]));
    const stale = await db.transaction().execute((tx) => insertAuditRowsOnHead(tx, head, [row(head.seq + 1, head.hash)]));
    expect(stale).toBe(false);
    const wrongHash = await db.transaction().execute((tx) => insertAuditRowsOnHead(tx, { seq: head.seq + 2, hash: 'not-it' }, [row(head.seq + 3, 'x')]));
    expect(wrongHash).toBe(false);
    const pastEnd = await db
      .transaction()
      .execute((tx) => insertAuditRowsOnHead(tx, { seq: head.seq + 3, hash: `h${head.seq + 3}` }, [row(head.seq + 4, 'x')]));
    expect(pastEnd).toBe(false);
    expect(await auditHead(db)).toEqual({ seq: head.seq + 2, hash: `h${head.seq + 2}` });
    const current = { seq: head.seq + 2, hash: `h${head.seq + 2}` };
    const ok = await db
      .transaction()
      .execute((tx) => insertAuditRowsOnHead(tx, current, [row(head.seq + 3, current.hash), row(head.seq + 4, `h${head.seq + 3}`)]));
    expect(ok).toBe(true);
    expect(await auditHead(db)).toEqual({ seq: head.seq + 4, hash: `h${head.seq + 4}` });
  });

  it('with live events (one statement on PostgreSQL): the events are written under the next ids either way, the entries only on the current head', async () => {
    const h = t();
    const db = h.store.kysely;
    await h.ctx.live.settle();
    const row = (seq: number, prevHash: string): AuditRow => ({ seq, entry: `{"live":${seq}}`, prevHash, hash: `l${seq}` });
    const live = (label: string) => ({
      events: [1, 2].map((n) => ({
        type: 'session_updated',
        sessionId: null,
        ownerUserId: null,
        payload: JSON.stringify({ label, n }),
        now: new Date().toISOString(),
      })),
      notifyChannel: 'warrant_live',
    });
    const before = (await oldestAndNewestLiveEventId(db)).newest;
    const head = (await auditHead(db))!;
    // another node appends behind this process's back: the remembered head is stale
    await db.transaction().execute((tx) => insertAuditRows(tx, [row(head.seq + 1, head.hash)]));
    const stale = await db.transaction().execute((tx) => insertLiveEventsAndAuditOnHead(tx, h.store, live('stale'), head, [row(head.seq + 1, head.hash)]));
    expect(stale).toBe(false);
    expect(await auditHead(db)).toEqual({ seq: head.seq + 1, hash: `l${head.seq + 1}` });
    const current = { seq: head.seq + 1, hash: `l${head.seq + 1}` };
    const ok = await db
      .transaction()
      .execute((tx) =>
        insertLiveEventsAndAuditOnHead(tx, h.store, live('current'), current, [row(head.seq + 2, current.hash), row(head.seq + 3, `l${head.seq + 2}`)]),
      );
    expect(ok).toBe(true);
    expect(await auditHead(db)).toEqual({ seq: head.seq + 3, hash: `l${head.seq + 3}` });
    // both writes' live events, numbered on from the counter in order, once each
    const written = (await liveEventsAfter(db, before, 100)).map((e) => ({ id: e.id, ...e.payload }));
    expect(written).toEqual([
      { id: before + 1, label: 'stale', n: 1 },
      { id: before + 2, label: 'stale', n: 2 },
      { id: before + 3, label: 'current', n: 1 },
      { id: before + 4, label: 'current', n: 2 },
    ]);
    expect((await oldestAndNewestLiveEventId(db)).newest).toBe(before + 4);
  });
});
