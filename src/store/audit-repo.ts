import type { Executor } from './dialect/dialect.js';

export interface AuditRow {
  seq: number;
  entry: string;
  prevHash: string;
  hash: string;
}

export async function auditHead(db: Executor): Promise<{ seq: number; hash: string } | null> {
  const row = await db.selectFrom('audit_log').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  return row ? { seq: Number(row.seq), hash: row.hash } : null;
}

export async function insertAuditRows(db: Executor, rows: readonly AuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('audit_log')
    .values(rows.map((r) => ({ seq: r.seq, entry: r.entry, prev_hash: r.prevHash, hash: r.hash })))
    .execute();
}

/** Reads the log in seq order, a page at a time. */
export async function auditPage(db: Executor, afterSeq: number, limit: number): Promise<AuditRow[]> {
  const rows = await db
    .selectFrom('audit_log')
    .select(['seq', 'entry', 'prev_hash', 'hash'])
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ seq: Number(r.seq), entry: r.entry, prevHash: r.prev_hash, hash: r.hash }));
}

export async function auditCount(db: Executor): Promise<number> {
  const row = await db.selectFrom('audit_log').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
