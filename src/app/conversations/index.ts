/**
 * Provider conversation history.
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { listConversations, recordEstimatedConversation, reportConversation } from './conversation-history.js';
