/**
 * The app kernel every surface shares: the context, who is calling (authentication and
 * access), and the live-event record. Everything else a surface needs comes from a
 * capability's entry module (`app/<capability>/index.ts`).
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { authorize, isVisible, requireSession, visibilityOf } from './access.js';
export { systemCaller } from './caller.js';
export type { Caller } from './caller.js';
export { isStoreUnavailableError } from './context.js';
export type { AppContext, DeploymentMode } from './context.js';
export { authenticate } from './credentials.js';
export type { LiveEventRecord } from './live-hub.js';
