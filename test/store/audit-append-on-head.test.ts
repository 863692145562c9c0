import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';
import { auditHead, insertAuditRows, insertAuditRowsOnHead, type AuditRow } from '../../src/store/audit-repo.js';

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
});
