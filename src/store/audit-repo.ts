import { sql, type RawBuilder } from 'kysely';
import { compiledForBatches } from './compiled-once.js';
import type { Executor } from './dialect/dialect.js';

export type AuditRow = {
  seq: number;
  entry: string;
  prevHash: string;
  hash: string;
};

// The append path's two statements are written as SQL templates: the query builder's
// per-call build and compile cost is a measurable share of a small write (bench/audit-bench.ts).
export async function auditHead(db: Executor): Promise<{ seq: number; hash: string } | null> {
  const r = await sql<{ seq: number | string; hash: string }>`select seq, hash from audit_log order by seq desc limit 1`.execute(db);
  const row = r.rows[0];
  return row ? { seq: Number(row.seq), hash: row.hash } : null;
}

export async function insertAuditRows(db: Executor, rows: readonly AuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  const values = sql.join(rows.map((r) => sql`(${r.seq}, ${r.entry}, ${r.prevHash}, ${r.hash})`));
  await sql`insert into audit_log (seq, entry, prev_hash, hash) values ${values}`.execute(db);
}

/**
 * Appends `rows` only if `head` is still the log's last entry (its seq and hash), in one
 * statement; false when it is not and nothing was written. Under the chain lock this lets a
 * writer that remembers the head skip reading it. "Still the last" is `max(seq)`, an index
 * endpoint read whatever the planner's statistics say; `not exists (… seq > head)` was planned
 * as a full scan of a log that had grown since its last ANALYZE (about 20 ms per write at
 * 200,000 entries on PostgreSQL, under the chain lock: every writer queued behind it).
 */
export async function insertAuditRowsOnHead(db: Executor, head: { seq: number; hash: string }, rows: readonly AuditRow[]): Promise<boolean> {
  if (rows.length === 0) return true;
  // compiled once per row count: a tenth of the append's CPU went to building the statement
  const appended = await auditRowsOnHeadStatement(db, { rows }, { headSeq: head.seq, headHash: head.hash });
  return appended.length === rows.length;
}

const auditRowsOnHeadStatement = compiledForBatches((_db, b: { rows: readonly AuditRow[] }, head: { headSeq: number; headHash: string }) =>
  auditRowsOnHeadSql({ seq: head.headSeq, hash: head.headHash }, b.rows),
);

/** The insert of insertAuditRowsOnHead, returning each appended seq (also a CTE of the live-event write, live-repo.ts). */
export function auditRowsOnHeadSql(head: { seq: number; hash: string }, rows: readonly AuditRow[]) {
  const values = sql.join(rows.map((r) => sql`(cast(${r.seq} as bigint), ${r.entry}, ${r.prevHash}, ${r.hash})`));
  return sql`insert into audit_log (seq, entry, prev_hash, hash) select * from (values ${values}) as v
    where (select max(seq) from audit_log) = ${head.seq} and exists (select 1 from audit_log where seq = ${head.seq} and hash = ${head.hash})
    returning seq`;
}

/** Entries only, in seq order after `afterSeq`: what a reader of the entries needs, without the chain's hashes. */
export async function auditEntriesPage(db: Executor, afterSeq: number, limit: number): Promise<{ seq: number; entry: string }[]> {
  const rows = await db.selectFrom('audit_log').select(['seq', 'entry']).where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
  for (const r of rows) if (typeof r.seq !== 'number') r.seq = Number(r.seq); // pg: bigint as text
  return rows;
}

/** Reads the log in seq order, a page at a time. */
export async function auditPage(db: Executor, afterSeq: number, limit: number): Promise<AuditRow[]> {
  const rows = await db.selectFrom('audit_log').select(['seq', 'entry', 'prev_hash', 'hash']).where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
  return rows.map((r) => ({ seq: Number(r.seq), entry: r.entry, prevHash: r.prev_hash, hash: r.hash }));
}

/** An entry's canonical text around its seq, the one part the store fills in (auditRowsFromHeadCtes). */
export type EntryTemplate = { before: string; after: string };

/**
 * Data-modifying CTEs (PostgreSQL) that append one row per template on the log's head as the
 * statement finds it: each row's seq is the one before plus one, its entry the template with
 * that seq written in, its hash sha256(previous hash's bytes ‖ the entry's UTF-8) — the chain
 * rule of core/audit-chain.ts (docs/design/attribution.md), computed by the server: a second writing of that rule,
 * held equal to it row for row by test/attribution/audit-chain-in-sql.test.ts. `a` returns the appended seqs. Under the
 * chain lock, taken by an earlier statement (a statement's snapshot is taken when it starts, so
 * the head it reads is the last committed one), the append needs no head read or guess first.
 */
export function auditRowsFromHeadCtes(templates: readonly EntryTemplate[], genesisHash: string): RawBuilder<unknown> {
  const links = templates.map(
    (t, i) => sql`${sql.raw(`r${i + 1}`)} as (select p.seq + 1 as seq, e.entry, p.hash as prev_hash,
        encode(sha256(decode(p.hash, 'hex') || convert_to(e.entry, 'UTF8')), 'hex') as hash
      from ${sql.raw(`r${i}`)} p, lateral (select cast(${t.before} as text) || cast(p.seq + 1 as text) || cast(${t.after} as text) as entry) e)`,
  );
  const rows = sql.join(
    templates.map((_, i) => sql`select seq, entry, prev_hash, hash from ${sql.raw(`r${i + 1}`)}`),
    sql` union all `,
  );
  return sql`r0 as ((select seq, hash from audit_log order by seq desc limit 1) union all (select cast(0 as bigint), cast(${genesisHash} as text)) order by seq desc limit 1),
    ${sql.join(links)},
    a as (insert into audit_log (seq, entry, prev_hash, hash) ${rows} returning seq)`;
}
