/**
 * Sessions: create, read, change and delete them, their lifecycle, runtime children and
 * transcripts, and the session views every surface renders (app/views.ts).
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { createSession } from './create-session.js';
export type { CreateSessionInput } from './create-session.js';
export { deleteSession, listDeletions } from './delete-session.js';
export { archiveSession, attachSession, changeLifecycle, reportRuntime } from './lifecycle.js';
export type { RuntimeReport } from './lifecycle.js';
export { patchSession } from './patch-session.js';
export { getSession, listSessionEvents, listSessions } from './read-sessions.js';
export type { EventView } from './read-sessions.js';
export { createRuntimeChild } from './runtime-children.js';
export { getSessionDetail } from './session-detail.js';
export { appendTranscript, readTranscript, readTranscriptPosition, readTranscriptTail } from './transcript.js';
export type { TranscriptRecordView } from './transcript.js';
export type { ActorView, SessionView } from '../views.js';
export { listEventsAcross } from './footprint.js';
