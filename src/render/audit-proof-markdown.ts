import type { CheckpointView, ConsistencyProof, InclusionProof } from '../app/audit-tree.js';

/** docs/audit-log.md: the shared text of a proof (MCP, CLI): what it proves and how to check it. */
function checkpointLine(c: CheckpointView | null, size: number): string {
  return c
    ? `Signed checkpoint of this tree: ${c.keyName}, ${c.signedAt} (root ${c.rootHash}).`
    : `No checkpoint was signed at tree size ${size}: check the root against one you hold, or ask for a checkpointed tree size.`;
}

export function renderInclusionProof(p: InclusionProof): string {
  return [
    `Inclusion proof: audit entry seq ${p.seq} (leaf ${p.leafIndex}) is in the tree of ${p.treeSize} entries with root ${p.rootHash}.`,
    `Leaf hash ${p.leafHash}; ${p.hashes.length} proof hash${p.hashes.length === 1 ? '' : 'es'}.`,
    checkpointLine(p.checkpoint, p.treeSize),
    'Check it offline: `warrant audit verify-proof --proof FILE --checkpoint NOTE --public-key KEY`.',
  ].join('\n');
}

export function renderConsistencyProof(p: ConsistencyProof): string {
  return [
    `Consistency proof: the tree of ${p.to} entries (root ${p.toRootHash}) extends the tree of ${p.from} (root ${p.fromRootHash}); ${p.hashes.length} proof hash${p.hashes.length === 1 ? '' : 'es'}.`,
    checkpointLine(p.fromCheckpoint, p.from),
    checkpointLine(p.toCheckpoint, p.to),
  ].join('\n');
}

export function renderCheckpoint(c: CheckpointView | null): string {
  return c
    ? `Newest audit checkpoint: tree size ${c.treeSize}, root ${c.rootHash}, signed by ${c.keyName} at ${c.signedAt}.\n\n${c.note}`
    : 'No audit checkpoint has been signed yet (set `checkpoint_key`).';
}
