import type { AckReport, LeasedItem } from '../app/inbox/runtime-inbox.js';
import type { DeliveryResult, QueueChangeResult } from '../app/inbox/deliveries.js';
import type { InboxItemView } from '../app/inbox/inbox-items.js';
import type { UncleEdgeResult } from '../app/lineage/uncle-edges.js';
import { serializeAttributed } from './record-json.js';

/** Wire forms (snake_case) of inbox items, deliveries and uncle-edge outcomes, shared by REST and MCP. */
export function serializeInboxItem(i: InboxItemView) {
  return {
    id: i.id,
    session_id: i.sessionId,
    kind: i.kind,
    mode: i.mode,
    state: i.state,
    content: i.content,
    details: i.details,
    sender: serializeAttributed(i.sender),
    sender_session_id: i.senderSessionId,
    cause: serializeAttributed(i.cause),
    lease_expires_at: i.leaseExpiresAt,
    leased_at: i.leasedAt,
    lease_count: i.leaseCount,
    delivered_at: i.deliveredAt,
    withdrawn_at: i.withdrawnAt,
    expires_at: i.expiresAt,
    written_at: i.writtenAt,
    written_deadline: i.writtenDeadline,
    retired_at: i.retiredAt,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
  };
}

export function serializeLeasedItem(i: LeasedItem) {
  return { ...serializeInboxItem(i), redelivery: i.redelivery, frame: { format: i.frame.format, text: i.frame.text } };
}

/** A delivery always reports its edge's outcome; a queue change may have none (null). */
function serializeUncleEdgeOutcome(u: UncleEdgeResult) {
  return { outcome: u.outcome, acting_session_id: u.actingSessionId, session_id: u.targetSessionId, basis: u.basis, source: u.source };
}

function serializeUncleEdge(u: UncleEdgeResult | null) {
  return u ? serializeUncleEdgeOutcome(u) : null;
}

export function serializeDelivery(r: DeliveryResult) {
  return { inbox_item: serializeInboxItem(r.item), uncle_edge: serializeUncleEdgeOutcome(r.uncleEdge) };
}

export function serializeQueueChange(r: QueueChangeResult) {
  return { inbox_item: serializeInboxItem(r.item), changed: r.changed, uncle_edge: serializeUncleEdge(r.uncleEdge) };
}

export function serializeAckReport(r: AckReport) {
  return { delivered: r.delivered, already_delivered: r.alreadyDelivered, rejected: r.rejected };
}
