/**
 * Errors that mean the store could not be used — unreachable, restarting, overloaded, locked,
 * full, refusing writes (a read-only file, a hot standby after a failover), or that chose this
 * transaction as a deadlock victim — rather than a
 * bug: a 503 the caller may retry. Both dialects' codes, and the pg client's own messages for a
 * connection that died under it (they carry no SQLSTATE).
 */
// 40001/40P01: a serialization failure or a deadlock victim — nothing was written, a retry succeeds
const UNAVAILABLE_CODES = [
  '40001',
  '40P01',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '25006',
  // lock_not_available: a lock_timeout ran out waiting (on the chain lock, say)
  '55P03',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
];
const UNAVAILABLE_MESSAGES = /Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|terminating connection/;

export function isStoreUnavailableError(error: unknown): boolean {
  const code = String((error as { code?: unknown })?.code ?? '');
  if (UNAVAILABLE_CODES.some((c) => code.startsWith(c))) return true;
  return error instanceof Error && UNAVAILABLE_MESSAGES.test(error.message);
}

const ROLLED_BACK = Symbol('warrant.rolledBack');

/**
 * Marks the error of a statement that went out with a COMMIT (postgres-pipeline.ts) when the
 * server answered that COMMIT: it rolled the transaction back, so nothing was written and the
 * outcome is known, not lost with a connection.
 */
export function markRolledBack(error: unknown): void {
  if (error !== null && typeof error === 'object') (error as { [ROLLED_BACK]?: boolean })[ROLLED_BACK] = true;
}

/** Whether a failure at COMMIT is one the server answered with a rollback (markRolledBack). */
export function isKnownRollback(error: unknown): boolean {
  return error !== null && typeof error === 'object' && (error as { [ROLLED_BACK]?: boolean })[ROLLED_BACK] === true;
}
