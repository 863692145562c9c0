import { looksLikeWarrantToken } from '../core/tokens.js';

/** Variables that carry a caller's credentials: never inherited by an agent (spec 08). */
const CREDENTIAL_VARIABLES = ['WARRANT_TOKEN', 'WARRANT_FLEET_KEY', 'WARRANT_SESSION_TOKEN', 'WARRANT_HUMAN_TOKEN'];

export interface SessionIdentity {
  url: string;
  sessionId: number;
  sessionUid: string;
  sessionToken: string;
}

/**
 * The child's environment: the caller's, minus every human token, fleet key or other
 * Warrant credential it held (by name and by value), plus the session's own identity.
 */
export function childEnvironment(parent: NodeJS.ProcessEnv, identity: SessionIdentity): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (CREDENTIAL_VARIABLES.includes(key)) continue;
    if (looksLikeWarrantToken(value)) continue;
    env[key] = value;
  }
  env.WARRANT_URL = identity.url;
  env.WARRANT_SESSION_ID = String(identity.sessionId);
  env.WARRANT_SESSION_UID = identity.sessionUid;
  env.WARRANT_SESSION_TOKEN = identity.sessionToken;
  return env;
}
