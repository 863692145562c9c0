/**
 * The roster and web sign-in (app/roster.ts, app/web-auth.ts).
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export {
  addUser,
  adoptAdminUser,
  editUser,
  findRosterUser,
  issueClientKey,
  issueFleetKey,
  issueHumanToken,
  listIssuedTokens,
  listUsers,
  renameUser,
  revokeIssuedToken,
} from '../roster.js';
export type { TokenRecord, UserRecord } from '../roster.js';
export {
  SETUP_CODE_TTL_MS,
  SIGN_IN_LINK_TTL_MS,
  authenticateWebSession,
  completeSetup,
  describeSignInLink,
  issueSetupCode,
  issueSignInLink,
  rosterIsEmpty,
  signInWithLink,
  setUserPassword,
  signInWithPassword,
  signOut,
  singleAdmin,
} from '../web-auth.js';
export type { SignInMeta, WebIdentity, WebSignIn } from '../web-auth.js';
