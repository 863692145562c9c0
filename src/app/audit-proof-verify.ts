import { WarrantError } from '../core/errors.js';
import { leafHash, verifyConsistency, verifyInclusion } from '../core/merkle-tree.js';
import { fromBase64, toBase64, type TreeHead } from '../core/signed-note.js';
import { sha256Bytes } from '../store/audit-tree-repo.js';
import { verifyCheckpointNote, type VerifierKey } from './checkpoints.js';

/**
 * `warrant audit verify-proof` (docs/audit-log.md): checks a proof offline — no server, no
 * store — against signed checkpoints and the public key the verifier trusts. The roots come
 * from the checkpoints, never from the proof; the leaf is hashed from the entry text itself.
 */
type VerifiedProof =
  | { kind: 'inclusion'; seq: number; treeSize: number; origin: string; rootHash: string; keyName: string }
  | { kind: 'consistency'; from: number; to: number; origin: string; fromRootHash: string; toRootHash: string; keyName: string };

const invalidProof = (message: string) => new WarrantError('invalid-proof', message);
const doesNotVerify = (message: string) => new WarrantError('proof-does-not-verify', message);

function count(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw invalidProof(`The proof's ${field} must be a positive whole number.`);
  return v;
}

function hashes(v: unknown): Uint8Array[] {
  if (!Array.isArray(v)) throw invalidProof('The proof has no hashes list.');
  return v.map((h, i) => {
    const b = typeof h === 'string' ? fromBase64(h) : null;
    if (!b || b.length !== 32) throw invalidProof(`The proof's hash ${i} is not a base64 SHA-256 hash.`);
    return b;
  });
}

type SignedHead = TreeHead & { keyName: string };

/** Verifies every note under the key; each must be a tree checkpoint (not an earlier version's chain-head one). */
function signedHeads(notes: readonly string[], key: VerifierKey, origin: string | null): SignedHead[] {
  return notes.map((note) => {
    const c = verifyCheckpointNote(note, key);
    if (c.format !== 'tlog-checkpoint') {
      throw new WarrantError(
        'proof-checkpoint-mismatch',
        `The checkpoint of seq ${c.seq} is an earlier version's chain-head checkpoint: it signs no Merkle root, so no proof can be checked against it.`,
      );
    }
    if (origin !== null && c.origin !== origin)
      throw new WarrantError('proof-checkpoint-mismatch', `The checkpoint is of the log ${JSON.stringify(c.origin)}, not ${JSON.stringify(origin)}.`);
    return c;
  });
}

function headOfSize(heads: readonly SignedHead[], size: number, role: string): SignedHead {
  const h = heads.find((x) => x.treeSize === size);
  if (!h) {
    throw new WarrantError(
      'proof-checkpoint-mismatch',
      `The proof's ${role} is tree size ${size}, but the checkpoint${heads.length === 1 ? ' signs' : 's sign'} tree size ${heads.map((x) => x.treeSize).join(' and ')}: give the checkpoint of tree size ${size}.`,
    );
  }
  return h;
}

export function verifyProofOffline(proof: unknown, notes: readonly string[], key: VerifierKey, options: { origin?: string } = {}): VerifiedProof {
  if (typeof proof !== 'object' || proof === null)
    throw invalidProof('The proof is not a JSON object (the output of `warrant audit prove` or the proofs API).');
  const p = proof as Record<string, unknown>;
  const heads = signedHeads(notes, key, options.origin ?? null);
  const kind = p.kind ?? (typeof p.entry === 'string' ? 'inclusion' : 'from' in p ? 'consistency' : null);
  if (kind === 'inclusion') {
    const seq = count(p.seq, 'seq');
    const treeSize = count(p.tree_size, 'tree_size');
    if (typeof p.entry !== 'string') throw invalidProof("The inclusion proof carries no entry text (the leaf's bytes).");
    let entrySeq: unknown;
    try {
      entrySeq = (JSON.parse(p.entry) as { seq?: unknown }).seq;
    } catch {
      throw invalidProof("The proof's entry is not an audit entry (canonical JSON).");
    }
    if (entrySeq !== seq) throw doesNotVerify(`The entry in the proof is seq ${String(entrySeq)}, not ${seq}.`);
    const head = headOfSize(heads, treeSize, 'tree');
    const leaf = leafHash(sha256Bytes, new TextEncoder().encode(p.entry));
    if (!verifyInclusion(sha256Bytes, seq - 1, treeSize, leaf, hashes(p.hashes), head.rootHash)) {
      throw doesNotVerify(
        `The inclusion proof of entry ${seq} does not lead to the signed root of the tree of ${treeSize}: the entry, the proof or the log differs from what was signed.`,
      );
    }
    return { kind, seq, treeSize, origin: head.origin, rootHash: toBase64(head.rootHash), keyName: head.keyName };
  }
  if (kind === 'consistency') {
    const from = count(p.from, 'from');
    const to = count(p.to, 'to');
    if (from > to) throw invalidProof(`from (${from}) is after to (${to}).`);
    const older = headOfSize(heads, from, 'older tree');
    const newer = headOfSize(heads, to, 'newer tree');
    if (!verifyConsistency(sha256Bytes, from, to, hashes(p.hashes), older.rootHash, newer.rootHash)) {
      throw doesNotVerify(
        `The consistency proof does not tie the signed tree of ${from} to the signed tree of ${to}: the log was rewritten between the two checkpoints, or the proof is wrong.`,
      );
    }
    return { kind, from, to, origin: newer.origin, fromRootHash: toBase64(older.rootHash), toRootHash: toBase64(newer.rootHash), keyName: newer.keyName };
  }
  throw invalidProof('The proof is neither an inclusion proof (seq, tree_size, entry, hashes) nor a consistency proof (from, to, hashes).');
}
