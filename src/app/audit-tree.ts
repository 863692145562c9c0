import { WarrantError } from '../core/errors.js';
import { consistencySpans, inclusionSpans, spanHash, spanNodes, type Span } from '../core/merkle-tree.js';
import { toBase64 } from '../core/signed-note.js';
import { auditHead, auditPage } from '../store/audit-repo.js';
import { AuditSeqGap, extendTree, sha256Bytes, treeLeafCount, treeNodes } from '../store/audit-tree-repo.js';
import { latestTreeCheckpoint, treeCheckpointOfSize, type CheckpointRecord } from '../store/checkpoints-repo.js';
import type { Executor } from '../store/dialect/dialect.js';
import { authorize } from './access.js';
import type { Caller } from './caller.js';
import type { AppContext } from './context.js';

/**
 * docs/audit-log.md "Merkle tree and proofs": roots and proofs over the audit log's RFC 9162
 * tree, read from the stored subtree hashes (store/audit-tree-repo.ts), which grow from their
 * frontier to the log's head when a proof or a checkpoint needs entries they do not cover yet.
 * Hashes go on the wire as base64, as in the checkpoint's root line.
 */

const fromHex = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

async function spanHashes(db: Executor, spans: readonly Span[]): Promise<Uint8Array[]> {
  const parts = spans.map(spanNodes);
  const stored = await treeNodes(db, parts.flat());
  return parts.map((refs) =>
    spanHash(
      sha256Bytes,
      refs.map((r) => {
        const h = stored.get(`${r.level}/${r.index}`);
        if (!h) throw new WarrantError('audit-log-broken', `The audit log's tree lacks the subtree ${r.level}/${r.index}; run \`warrant audit verify\`.`);
        return fromHex(h);
      }),
    ),
  );
}

/** Makes sure the stored tree covers `size` leaves (refusing when the log does not have them). */
async function coverTree(db: Executor, size: number): Promise<void> {
  if ((await treeLeafCount(db)) >= size) return;
  try {
    await extendTree(db);
  } catch (error) {
    if (error instanceof AuditSeqGap)
      throw new WarrantError('audit-log-broken', `The audit log has no entry ${error.expectedSeq}: the chain is broken there; run \`warrant audit verify\`.`);
    throw error;
  }
}

/** The tree's root over the first `size` entries (the tree must cover them). */
export async function treeRoot(db: Executor, size: number): Promise<Uint8Array> {
  await coverTree(db, size);
  return (await spanHashes(db, [{ start: 0, end: size }]))[0]!;
}

export interface CheckpointView {
  treeSize: number;
  rootHash: string;
  signedAt: string;
  keyName: string;
  keyHash: string;
  note: string;
}

function checkpointView(c: CheckpointRecord): CheckpointView {
  return { treeSize: c.seq, rootHash: toBase64(fromHex(c.rootHash!)), signedAt: c.signedAt, keyName: c.keyName, keyHash: c.keyHash, note: c.note };
}

export interface InclusionProof {
  seq: number;
  leafIndex: number;
  treeSize: number;
  /** the entry's canonical text: the leaf's bytes */
  entry: string;
  leafHash: string;
  rootHash: string;
  hashes: string[];
  /** the tree checkpoint of exactly this size, when one was signed */
  checkpoint: CheckpointView | null;
}

export interface ConsistencyProof {
  from: number;
  to: number;
  fromRootHash: string;
  toRootHash: string;
  hashes: string[];
  fromCheckpoint: CheckpointView | null;
  toCheckpoint: CheckpointView | null;
}

async function logSize(db: Executor): Promise<number> {
  const size = (await auditHead(db))?.seq ?? 0;
  if (size === 0) throw new WarrantError('audit-log-empty', 'The audit log has no entries yet; there is nothing to prove.');
  return size;
}

/** Tree size to prove against when none is asked: the newest tree checkpoint at or above `atLeast`, else the log's head. */
async function defaultTreeSize(db: Executor, size: number, atLeast: number): Promise<number> {
  const cp = await latestTreeCheckpoint(db, { maxSeq: size });
  return cp && cp.seq >= atLeast ? cp.seq : size;
}

function checkTreeSize(treeSize: number, size: number, field: string): void {
  if (treeSize > size) {
    throw new WarrantError('tree-size-beyond-log', `${field} ${treeSize} is beyond the audit log, which has ${size} entries.`, {
      details: { field, log_size: size },
    });
  }
}

async function viewOfSize(db: Executor, size: number): Promise<CheckpointView | null> {
  const c = await treeCheckpointOfSize(db, size);
  return c ? checkpointView(c) : null;
}

/**
 * The inclusion proof of entry `seq` in the tree of `treeSize` entries (default: the newest
 * tree checkpoint that includes it, else the head). Admins only, like every audit read.
 */
export async function auditInclusionProof(ctx: AppContext, caller: Caller, input: { seq: number; treeSize?: number }): Promise<InclusionProof> {
  const db = ctx.store.kysely;
  await authorize(db, ctx, caller, 'admin', null);
  const size = await logSize(db);
  const treeSize = input.treeSize ?? (await defaultTreeSize(db, size, input.seq));
  checkTreeSize(treeSize, size, 'tree_size');
  if (input.seq > treeSize) {
    throw new WarrantError(
      'seq-beyond-tree-size',
      `Entry ${input.seq} is not in a tree of ${treeSize} entries; ask for a tree_size of at least ${input.seq}.`,
      {
        details: { seq: input.seq, tree_size: treeSize },
      },
    );
  }
  await coverTree(db, treeSize);
  const index = input.seq - 1;
  const [row] = await auditPage(db, index, 1);
  if (!row || row.seq !== input.seq) throw new WarrantError('audit-log-broken', `The audit log has no entry ${input.seq}; run \`warrant audit verify\`.`);
  const [leaf, root, ...path] = await spanHashes(db, [{ start: index, end: index + 1 }, { start: 0, end: treeSize }, ...inclusionSpans(index, treeSize)]);
  return {
    seq: input.seq,
    leafIndex: index,
    treeSize,
    entry: row.entry,
    leafHash: toBase64(leaf!),
    rootHash: toBase64(root!),
    hashes: path.map(toBase64),
    checkpoint: await viewOfSize(db, treeSize),
  };
}

/** The consistency proof from the tree of `from` entries to the tree of `to` (default: as the inclusion default). */
export async function auditConsistencyProof(ctx: AppContext, caller: Caller, input: { from: number; to?: number }): Promise<ConsistencyProof> {
  const db = ctx.store.kysely;
  await authorize(db, ctx, caller, 'admin', null);
  const size = await logSize(db);
  const to = input.to ?? (await defaultTreeSize(db, size, input.from));
  checkTreeSize(input.from, size, 'from');
  checkTreeSize(to, size, 'to');
  if (input.from > to) {
    throw new WarrantError(
      'consistency-range-invalid',
      `from (${input.from}) is after to (${to}): a consistency proof goes from the older, smaller tree to the newer one.`,
      {
        details: { from: input.from, to },
      },
    );
  }
  await coverTree(db, to);
  const [root1, root2, ...path] = await spanHashes(db, [{ start: 0, end: input.from }, { start: 0, end: to }, ...consistencySpans(input.from, to)]);
  return {
    from: input.from,
    to,
    fromRootHash: toBase64(root1!),
    toRootHash: toBase64(root2!),
    hashes: path.map(toBase64),
    fromCheckpoint: await viewOfSize(db, input.from),
    toCheckpoint: await viewOfSize(db, to),
  };
}

/** The newest tree checkpoint (what a verifier holds proofs against), or null. */
export async function currentAuditCheckpoint(ctx: AppContext, caller: Caller): Promise<CheckpointView | null> {
  const db = ctx.store.kysely;
  await authorize(db, ctx, caller, 'admin', null);
  const c = await latestTreeCheckpoint(db);
  return c ? checkpointView(c) : null;
}
