/**
 * The audit log: its export and verification, and signed checkpoints (app/audit.ts,
 * app/audit-verify.ts, app/checkpoints.ts).
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { exportAuditLines, verifyExportLines, verifyStoredChain } from '../audit-verify.js';
export type { CheckpointExpectation, VerifyReport } from '../audit-verify.js';
export { newestCheckpoint, parsePublicKeyInput, verifyCheckpointNote, writeCheckpoint } from '../checkpoints.js';
