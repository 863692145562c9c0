import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { CompactRange, leafHash, spanNodes, type NodeRef, type Sha256Bytes, type StoredNode } from '../core/merkle-tree.js';
import { auditPage } from './audit-repo.js';
import type { Executor } from './dialect/dialect.js';

/**
 * docs/audit-log.md "Merkle tree and proofs": the hashes of the perfect subtrees of the audit
 * log's Merkle tree (level 0: the leaf hashes), so a root or a proof reads O(log n) rows instead
 * of rehashing the log. Derived data: every row follows from `audit_log`; a proof built from a
 * row someone altered fails verification against any honest checkpoint.
 */
export const sha256Bytes: Sha256Bytes = (data) => new Uint8Array(createHash('sha256').update(data).digest());

const encoder = new TextEncoder();
const key = (level: number, index: number) => `${level}/${index}`;

/** How many leaves the stored tree covers (entries seq 1…n). */
export async function treeLeafCount(db: Executor): Promise<number> {
  const r = await sql<{ n: number | string | null }>`select max(idx) as n from audit_tree_nodes where level = 0`.execute(db);
  const n = r.rows[0]?.n;
  return n === null || n === undefined ? 0 : Number(n) + 1;
}

/** The stored hashes (hex) of the given perfect subtrees, keyed `level/index`; missing ones are absent. */
export async function treeNodes(db: Executor, refs: readonly NodeRef[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unique = [...new Map(refs.map((r) => [key(r.level, r.index), r])).values()];
  for (let i = 0; i < unique.length; i += 200) {
    const chunk = unique.slice(i, i + 200);
    const rows = await db
      .selectFrom('audit_tree_nodes')
      .select(['level', 'idx', 'hash'])
      .where((eb) => eb.or(chunk.map((r) => eb.and([eb('level', '=', r.level), eb('idx', '=', r.index)]))))
      .execute();
    for (const row of rows) out.set(key(Number(row.level), Number(row.idx)), row.hash);
  }
  return out;
}

async function insertTreeNodes(db: Executor, nodes: readonly StoredNode[]): Promise<void> {
  for (let i = 0; i < nodes.length; i += 1000) {
    const values = nodes.slice(i, i + 1000).map((n) => ({ level: n.level, idx: n.index, hash: Buffer.from(n.hash).toString('hex') }));
    // several nodes may extend the tree at once: the rows are the same, the first write wins
    await db
      .insertInto('audit_tree_nodes')
      .values(values)
      .onConflict((oc) => oc.columns(['level', 'idx']).doNothing())
      .execute();
  }
}

/** Raised when the log itself is not gapless where the tree is extended. */
export class AuditSeqGap extends Error {
  constructor(readonly expectedSeq: number) {
    super(`audit_log has no entry ${expectedSeq} where the next one was expected`);
  }
}

/**
 * Extends the stored tree to cover the whole log (entries are immutable, so rows once written
 * stay right). Returns the number of leaves now covered.
 */
export async function extendTree(db: Executor, options: { pageSize?: number } = {}): Promise<number> {
  const size = await treeLeafCount(db);
  const frontierRefs = size === 0 ? [] : spanNodes({ start: 0, end: size });
  const stored = await treeNodes(db, frontierRefs);
  const frontier = frontierRefs.map((r) => {
    const h = stored.get(key(r.level, r.index));
    if (!h) throw new Error(`audit_tree_nodes lacks the frontier node ${key(r.level, r.index)}`);
    return new Uint8Array(Buffer.from(h, 'hex'));
  });
  const range = new CompactRange(sha256Bytes, size, frontier);
  for (;;) {
    const page = await auditPage(db, range.size, options.pageSize ?? 5_000);
    if (page.length === 0) return range.size;
    const made: StoredNode[] = [];
    for (const row of page) {
      if (row.seq !== range.size + 1) throw new AuditSeqGap(range.size + 1);
      made.push(...range.append(leafHash(sha256Bytes, encoder.encode(row.entry))));
    }
    await insertTreeNodes(db, made);
  }
}
