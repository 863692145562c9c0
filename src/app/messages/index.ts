/**
 * Agent messages: send and read them.
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { readMessage } from './read-message.js';
export { sendMessage } from './send-message.js';
