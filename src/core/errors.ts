/**
 * The closed error vocabulary: every refusal token and its HTTP meaning, in one table (the
 * tRPC habit). A token without a row does not compile; no call site picks its own status —
 * a refusal that needs another status is another token with its own row. Each surface maps a
 * `WarrantError` in one module, http/errors.ts (REST body, MCP tool error, web page, CLI exit).
 */
export const ERROR_STATUS = {
  'invalid-request': 400,
  'malformed-json': 400,
  'acting-session-not-allowed': 400,
  'genesis-not-allowed': 400,
  unauthenticated: 401,
  'invalid-token': 401,
  forbidden: 403,
  'token-superseded': 403,
  'session-not-live': 403,
  'acting-session-mismatch': 403,
  'not-found': 404,
  'session-not-found': 404,
  'invalid-transition': 409,
  'idempotency-key-mismatch': 409,
  'idempotency-key-in-flight': 409,
  'body-too-large': 413,
  // lineage (docs/concepts.md)
  'parent-not-found': 404,
  'parent-not-older': 409,
  'parent-cycle': 409,
  'parent-cycle-unproven': 409,
  'parent-owner-mismatch': 409,
  'legacy-parent': 409,
  'admin-already-set': 409,
  'deployment-mode-mismatch': 409,
  'uncle-link-not-found': 404,
  'uncle-link-reversed': 404,
  'no-parent': 409,
  // the inbox (docs/messages.md)
  'target-unavailable': 409,
  'enqueued-message-not-found': 404,
  'enqueued-message-not-pending': 409,
  'inbox-item-not-found': 404,
  'inbox-item-not-undelivered': 409,
  'content-too-large': 413,
  // agent messages (docs/messages.md; actions in core/message-refusals.ts)
  'envelope-invalid': 422,
  'ref-content-mismatch': 409,
  'source-activation-stale': 409,
  'target-not-found': 404,
  'reply-sender-unverified': 409,
  'reply-original-not-found': 409,
  'reply-operator-origin': 409,
  'reply-correlation-mismatch': 409,
  'reply-original-not-delivered': 409,
  'reply-conversation-changed': 409,
  'reply-deadline-expired': 409,
  'reply-deadline-extended': 409,
  'reply-already-committed': 409,
  'store-capacity': 503,
  'outcome-unknown': 503,
  'message-not-found': 404,
  // provider conversation history (docs/messages.md)
  'provider-mismatch': 409,
  // transcripts appended by offset (docs/design/agent-runtimes.md)
  'transcript-offset-mismatch': 409,
  'transcript-chunk-too-large': 413,
  'transcripts-off': 409,
  'unsupported-media-type': 415,
  // the terminal witness (docs/design/terminal-channel.md)
  'witness-needs-human-token': 403,
  'witness-credential-scope': 403,
  'session-not-attached': 409,
  'terminal-turn-not-found': 404,
  'terminal-turn-unreliable': 409,
  'terminal-turn-consumed': 409,
  'terminal-turn-mismatch': 409,
  'prompt-report-missing': 409,
  'terminal-already-closed': 409,
  'run-prompt-exists': 409,
  // the roster and its tokens (docs/operations.md)
  'user-not-found': 404,
  'user-exists': 409,
  'token-not-found': 404,
  'slack-id-taken': 409,
  'unknown-owner': 400,
  'custom-metadata-too-large': 413,
  // settings (docs/operations.md)
  'invalid-setting': 400,
  'unknown-setting': 404,
  // audit export, checkpoints and their keys (docs/attribution.md)
  'invalid-export': 400,
  'invalid-key': 400,
  'invalid-checkpoint': 400,
  'checkpoint-signature-invalid': 400,
  // Slack ingress (docs/integrations.md)
  'slack-not-configured': 404,
  'slack-request-stale': 401,
  'slack-signature-invalid': 401,
  // the request's host and origin (DNS-rebinding and CSRF protection)
  'host-not-allowed': 403,
  'origin-not-allowed': 403,
  'csrf-failed': 403,
  // web sign-in and first-run setup
  'sign-in-failed': 401,
  'sign-in-link-invalid': 401,
  'sign-in-link-used': 401,
  'sign-in-link-expired': 401,
  'setup-code-invalid': 401,
  'setup-done': 409,
  'no-single-admin': 409,
  'single-admin-mode': 409,
  // the audit log's checkpoints and Merkle proofs (docs/audit-log.md)
  'invalid-origin': 400,
  'invalid-proof': 400,
  'proof-does-not-verify': 400,
  'proof-checkpoint-mismatch': 400,
  'seq-beyond-tree-size': 400,
  'consistency-range-invalid': 400,
  'tree-size-beyond-log': 409,
  'audit-log-empty': 409,
  'audit-log-broken': 409,
  // web sign-in: too many failed passwords for one key (core/attempt-throttle.ts)
  'sign-in-throttled': 429,
  'internal-error': 500,
  // a node refusing to start (exit code 2), never an HTTP answer: its secret is not the store's
  'server-secret-mismatch': 500,
  'store-unavailable': 503,
  // a request that reached a node after its shutdown began (docs/operations.md)
  'shutting-down': 503,
} as const satisfies Record<string, number>;

/** Every token a `WarrantError` may carry: the rows of `ERROR_STATUS`, nothing else. */
export type KnownErrorToken = keyof typeof ERROR_STATUS;

export class WarrantError extends Error {
  readonly token: KnownErrorToken;
  readonly status: number;
  readonly details: Record<string, unknown>;

  constructor(token: KnownErrorToken, message: string, options: { details?: Record<string, unknown> } = {}) {
    super(message);
    this.name = 'WarrantError';
    this.token = token;
    this.status = ERROR_STATUS[token];
    this.details = options.details ?? {};
  }

  /** The wire body shared by REST and MCP: `{error, message, ...details}`. */
  toBody(): Record<string, unknown> {
    return { error: this.token, message: this.message, ...this.details };
  }
}

export function isWarrantError(value: unknown): value is WarrantError {
  return value instanceof WarrantError;
}

export function invalidRequest(field: string, message: string): WarrantError {
  return new WarrantError('invalid-request', `${field}: ${message}`, { details: { field } });
}
