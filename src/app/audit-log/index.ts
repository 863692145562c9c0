/**
 * The audit log: its export and verification, and signed checkpoints (app/audit.ts,
 * app/audit-verify.ts, app/checkpoints.ts).
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { exportAuditLines, verifyExportLines, verifyStoredChain } from '../audit-verify.js';
export type { CheckpointExpectation, VerifyReport } from '../audit-verify.js';
export { newestCheckpoint, parsePublicKeyInput, verifyCheckpointNote, writeCheckpoint } from '../checkpoints.js';
export { verifyStoredRecords } from '../audit-records.js';
export type { RecordsReport } from '../audit-records.js';
export { verifyProofOffline } from '../audit-proof-verify.js';
export { auditConsistencyProof } from '../audit-tree.js';
export { auditInclusionProof } from '../audit-tree.js';
export type { CheckpointView } from '../audit-tree.js';
export type { ConsistencyProof } from '../audit-tree.js';
export type { InclusionProof } from '../audit-tree.js';
export { currentAuditCheckpoint } from '../audit-tree.js';
