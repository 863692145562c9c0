import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { auditConsistencyProof, auditInclusionProof, currentAuditCheckpoint } from '../../app/audit-log/index.js';
import type { AppContext } from '../../app/kernel.js';
import {
  CheckpointResponse,
  ConsistencyProofSchema,
  ConsistencyQuery,
  InclusionProofSchema,
  InclusionQuery,
  serializeCheckpoint,
  serializeConsistencyProof,
  serializeInclusionProof,
} from '../audit-schemas.js';
import { json, route, type HttpEnv } from '../env.js';
import { ErrorSchema } from '../schemas.js';

const err = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const errors = {
  403: err('forbidden: audit reads are for admins'),
  409: err('audit-log-empty (nothing to prove yet), tree-size-beyond-log (the log has fewer entries), audit-log-broken (run `warrant audit verify`)'),
};

/** docs/audit-log.md "Merkle tree and proofs"; admins, like every read of the audit log. */
export function registerAuditRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/audit/checkpoint',
      operationId: 'getAuditCheckpoint',
      summary: 'The newest signed tree checkpoint of the audit log (admins)',
      description:
        'A C2SP `tlog-checkpoint` signed note (Ed25519): origin, tree size, base64 RFC 9162 root hash. `checkpoint: null` while none has been signed (set `checkpoint_key`).',
      responses: { 200: ok(CheckpointResponse, 'the newest checkpoint, or null'), 403: errors[403] },
    }),
    async (c) => json(c, { checkpoint: serializeCheckpoint(await currentAuditCheckpoint(ctx, c.get('caller'))) }),
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/audit/proofs/inclusion',
      operationId: 'getAuditInclusionProof',
      summary: 'An RFC 9162 inclusion proof of one audit entry in the tree of tree_size entries (admins)',
      description:
        "Leaf `seq − 1` is the entry's canonical text (returned as `entry`); leaf hash SHA-256(0x00 ‖ entry), nodes SHA-256(0x01 ‖ left ‖ right). Verify it offline with `warrant audit verify-proof` against a checkpoint of the same tree size. `400 seq-beyond-tree-size` when seq > tree_size.",
      request: { query: InclusionQuery },
      responses: { 200: ok(InclusionProofSchema, 'the proof'), 400: err('invalid-request or seq-beyond-tree-size'), ...errors },
    }),
    async (c) => {
      const q = c.req.valid('query');
      return json(
        c,
        serializeInclusionProof(
          await auditInclusionProof(ctx, c.get('caller'), { seq: q.seq, ...(q.tree_size === undefined ? {} : { treeSize: q.tree_size }) }),
        ),
      );
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/audit/proofs/consistency',
      operationId: 'getAuditConsistencyProof',
      summary: 'An RFC 9162 consistency proof that the tree of `to` entries extends the tree of `from` (admins)',
      description: 'Proves the log only grew between two checkpoints. Empty when from = to. `400 consistency-range-invalid` when from > to.',
      request: { query: ConsistencyQuery },
      responses: { 200: ok(ConsistencyProofSchema, 'the proof'), 400: err('invalid-request or consistency-range-invalid'), ...errors },
    }),
    async (c) => {
      const q = c.req.valid('query');
      return json(
        c,
        serializeConsistencyProof(await auditConsistencyProof(ctx, c.get('caller'), { from: q.from, ...(q.to === undefined ? {} : { to: q.to }) })),
      );
    },
  );
}
