/**
 * The inbox: deliveries to sessions and what their runtimes lease, read and acknowledge.
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { reportPrompt, reportWritten, resendInboxItem } from './agent-delivery.js';
export { changeQueuedItem, deliverNew, listEnqueued } from './deliveries.js';
export type { NewDeliveryAction } from './deliveries.js';
export type { InboxItemView } from './inbox-items.js';
export { messageParent } from './message-parent.js';
export { ackInbox, leaseInbox, listInbox, readInbox } from './runtime-inbox.js';
