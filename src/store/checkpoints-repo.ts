import type { Executor } from './dialect/dialect.js';

/** A signed audit checkpoint as stored (docs/attribution.md): the note is the whole signed text. */
export interface CheckpointRecord {
  id: number;
  seq: number;
  hash: string;
  signedAt: string;
  keyName: string;
  keyHash: string;
  note: string;
  /** the Merkle root (hex) of a tlog-checkpoint; null on a chain-head checkpoint of earlier versions */
  rootHash: string | null;
}

type Row = { id: number; seq: number; hash: string; signed_at: string; key_name: string; key_hash: string; note: string; root_hash: string | null };

function toRecord(r: Row): CheckpointRecord {
  return {
    id: Number(r.id),
    seq: Number(r.seq),
    hash: r.hash,
    signedAt: r.signed_at,
    keyName: r.key_name,
    keyHash: r.key_hash,
    note: r.note,
    rootHash: r.root_hash ?? null,
  };
}

/** Stores a checkpoint; a second one for the same head and key is a no-op (several nodes may sign). */
export async function insertCheckpoint(db: Executor, c: Omit<CheckpointRecord, 'id'>): Promise<boolean> {
  const r = await db
    .insertInto('audit_checkpoints')
    .values({ seq: c.seq, hash: c.hash, signed_at: c.signedAt, key_name: c.keyName, key_hash: c.keyHash, note: c.note, root_hash: c.rootHash })
    .onConflict((oc) => oc.columns(['seq', 'key_hash']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function latestCheckpoint(db: Executor, keyHash?: string): Promise<CheckpointRecord | null> {
  let q = db.selectFrom('audit_checkpoints').selectAll();
  if (keyHash) q = q.where('key_hash', '=', keyHash);
  const row = await q.orderBy('seq', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row ? toRecord(row) : null;
}

/** The newest checkpoint that signs a Merkle tree head (not an earlier version's chain-head one). */
export async function latestTreeCheckpoint(db: Executor, options: { maxSeq?: number } = {}): Promise<CheckpointRecord | null> {
  let q = db.selectFrom('audit_checkpoints').selectAll().where('root_hash', 'is not', null);
  if (options.maxSeq !== undefined) q = q.where('seq', '<=', options.maxSeq);
  const row = await q.orderBy('seq', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row ? toRecord(row) : null;
}

/** A tree checkpoint of exactly this size, if one was signed. */
export async function treeCheckpointOfSize(db: Executor, size: number): Promise<CheckpointRecord | null> {
  const row = await db
    .selectFrom('audit_checkpoints')
    .selectAll()
    .where('root_hash', 'is not', null)
    .where('seq', '=', size)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}
