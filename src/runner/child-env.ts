import { looksLikeWarrantToken } from '../core/tokens.js';

export interface SessionIdentity {
  url: string;
  sessionId: number;
  sessionUid: string;
  sessionToken: string;
}

/**
 * Whether a caller's variable may reach the agent. docs/design/agent-runtimes.md, "the host
 * boundary": no store path, server secret, fleet key or human token — so every `WARRANT_*` the
 * runner does not set, `DATABASE_URL` and libpq's `PG*` are dropped by name, and any value shaped
 * like a Warrant token by value (a token smuggled under another name).
 */
export function inheritable(key: string, value: string): boolean {
  if (key.startsWith('WARRANT_')) return false;
  if (key === 'DATABASE_URL' || key.startsWith('PG')) return false;
  return !looksLikeWarrantToken(value) && !WITNESS_TOKEN_SHAPE.test(value.trim());
}

/** The terminal witness's credential, named here too so it is stripped whatever the token list says. */
const WITNESS_TOKEN_SHAPE = /^wrt_t_[A-Za-z0-9_-]{16,}$/;

/** The child's environment: the caller's, less what `inheritable` refuses, plus the session's own identity. */
export function childEnvironment(
  parent: NodeJS.ProcessEnv,
  identity: SessionIdentity,
  extra: { runnerSocket?: string; cli?: string } = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined || !inheritable(key, value)) continue;
    env[key] = value;
  }
  env.WARRANT_URL = identity.url;
  env.WARRANT_SESSION_ID = String(identity.sessionId);
  env.WARRANT_SESSION_UID = identity.sessionUid;
  env.WARRANT_SESSION_TOKEN = identity.sessionToken;
  if (extra.runnerSocket) env.WARRANT_RUNNER_SOCKET = extra.runnerSocket;
  // the agent can call this CLI without `warrant` on PATH: node "$WARRANT_CLI" …
  if (extra.cli) env.WARRANT_CLI = extra.cli;
  return env;
}
