import { z } from 'zod';
import { auditConsistencyProof, auditInclusionProof, currentAuditCheckpoint } from '../../app/audit-log/index.js';
import { invalidRequest } from '../../core/errors.js';
import { serializeCheckpoint, serializeConsistencyProof, serializeInclusionProof } from '../../http/audit-schemas.js';
import { renderCheckpoint, renderConsistencyProof, renderInclusionProof } from '../../render/audit-proof-markdown.js';
import { defineTool, type ToolDefinition } from '../tool.js';

const Count = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

const schema = z.object({
  kind: z
    .enum(['inclusion', 'consistency', 'checkpoint'])
    .describe('inclusion: entry seq is in the tree; consistency: the tree of `to` extends the tree of `from`; checkpoint: the newest signed one'),
  seq: Count.optional().describe('inclusion: the entry'),
  tree_size: Count.optional().describe('inclusion: the tree (default: the newest checkpoint that includes seq, else the whole log)'),
  from: Count.optional().describe('consistency: the older tree size'),
  to: Count.optional().describe('consistency: the newer tree size (default: the newest checkpoint, else the whole log)'),
});

/** docs/audit-log.md "Merkle tree and proofs": the REST proofs' twin (admins). */
const getAuditProofTool = defineTool({
  name: 'get_audit_proof',
  groups: ['sessions'],
  title: 'Get an audit log proof',
  description: () =>
    'Admins: an RFC 9162 Merkle proof over the tamper-evident audit log — that an entry is in the log (kind inclusion, seq), that the log only grew between two tree sizes (kind consistency, from, to) — or the newest signed C2SP checkpoint (kind checkpoint). Hashes are base64; verify offline with `warrant audit verify-proof`.',
  inputSchema: () => schema,
  annotations: { readOnlyHint: true, idempotentHint: true },
  handler: async (ctx, caller, args) => {
    const a = args;
    if (a.kind === 'inclusion') {
      if (a.seq === undefined) throw invalidRequest('seq', 'an inclusion proof needs seq');
      const p = await auditInclusionProof(ctx, caller, { seq: a.seq, ...(a.tree_size === undefined ? {} : { treeSize: a.tree_size }) });
      return { text: renderInclusionProof(p), data: { kind: 'inclusion', ...serializeInclusionProof(p) } };
    }
    if (a.kind === 'consistency') {
      if (a.from === undefined) throw invalidRequest('from', 'a consistency proof needs from');
      const p = await auditConsistencyProof(ctx, caller, { from: a.from, ...(a.to === undefined ? {} : { to: a.to }) });
      return { text: renderConsistencyProof(p), data: { kind: 'consistency', ...serializeConsistencyProof(p) } };
    }
    const c = await currentAuditCheckpoint(ctx, caller);
    return { text: renderCheckpoint(c), data: { kind: 'checkpoint', checkpoint: serializeCheckpoint(c) } };
  },
});

export const AUDIT_TOOLS: ToolDefinition[] = [getAuditProofTool];
