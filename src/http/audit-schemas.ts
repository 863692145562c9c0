import { z } from '@hono/zod-openapi';
import type { CheckpointView, ConsistencyProof, InclusionProof } from '../app/audit-log/index.js';

/** docs/audit-log.md "Merkle tree and proofs": the wire shapes of checkpoints and proofs (hashes in base64). */
const Count = (name: string, description: string) =>
  z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ param: { name, in: 'query' }, example: 97, description });

export const InclusionQuery = z.object({
  seq: Count('seq', 'the entry (its seq; leaf index seq − 1)'),
  tree_size: Count('tree_size', 'the tree to prove against (default: the newest tree checkpoint that includes seq, else the whole log)').optional(),
});

export const ConsistencyQuery = z.object({
  from: Count('from', 'the older tree size (a checkpoint the verifier holds)'),
  to: Count('to', 'the newer tree size (default: the newest tree checkpoint, else the whole log)').optional(),
});

const Base64Hash = z.string().openapi({ example: 'CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=' });

const CheckpointSchema = z
  .object({
    tree_size: z.number().int(),
    root_hash: Base64Hash,
    signed_at: z.string(),
    key_name: z.string(),
    key_hash: z.string().openapi({ description: 'the 4-byte key ID, 8 hex digits' }),
    note: z.string().openapi({ description: 'the C2SP signed note: origin, tree size, root hash, a blank line, the signature line' }),
  })
  .openapi('AuditCheckpoint');

export const CheckpointResponse = z.object({ checkpoint: CheckpointSchema.nullable() });

export const InclusionProofSchema = z
  .object({
    seq: z.number().int(),
    leaf_index: z.number().int(),
    tree_size: z.number().int(),
    entry: z.string().openapi({ description: "the entry's canonical text: the leaf's bytes are its UTF-8" }),
    leaf_hash: Base64Hash,
    root_hash: Base64Hash,
    hashes: z.array(Base64Hash).openapi({ description: 'the RFC 9162 inclusion path, lowest first' }),
    checkpoint: CheckpointSchema.nullable().openapi({ description: 'the signed tree checkpoint of exactly tree_size, when there is one' }),
  })
  .openapi('AuditInclusionProof');

export const ConsistencyProofSchema = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    from_root_hash: Base64Hash,
    to_root_hash: Base64Hash,
    hashes: z.array(Base64Hash).openapi({ description: 'the RFC 9162 consistency proof' }),
    from_checkpoint: CheckpointSchema.nullable(),
    to_checkpoint: CheckpointSchema.nullable(),
  })
  .openapi('AuditConsistencyProof');

export function serializeCheckpoint(c: CheckpointView | null): z.infer<typeof CheckpointSchema> | null {
  return c ? { tree_size: c.treeSize, root_hash: c.rootHash, signed_at: c.signedAt, key_name: c.keyName, key_hash: c.keyHash, note: c.note } : null;
}

export function serializeInclusionProof(p: InclusionProof): z.infer<typeof InclusionProofSchema> {
  return {
    seq: p.seq,
    leaf_index: p.leafIndex,
    tree_size: p.treeSize,
    entry: p.entry,
    leaf_hash: p.leafHash,
    root_hash: p.rootHash,
    hashes: p.hashes,
    checkpoint: serializeCheckpoint(p.checkpoint),
  };
}

export function serializeConsistencyProof(p: ConsistencyProof): z.infer<typeof ConsistencyProofSchema> {
  return {
    from: p.from,
    to: p.to,
    from_root_hash: p.fromRootHash,
    to_root_hash: p.toRootHash,
    hashes: p.hashes,
    from_checkpoint: serializeCheckpoint(p.fromCheckpoint),
    to_checkpoint: serializeCheckpoint(p.toCheckpoint),
  };
}
