/**
 * Agent messages: send, read and export them.
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { exportHistoryLines } from './history-export.js';
export { readMessage } from './read-message.js';
export { sendMessage } from './send-message.js';
export { listSessionMessages } from './session-messages.js';
export type { SessionMessage } from './session-messages.js';
