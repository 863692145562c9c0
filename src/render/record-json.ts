import type { EventView } from '../app/sessions/read-sessions.js';
import type { DeletionView } from '../app/sessions/delete-session.js';
import type { ActorView } from '../app/views.js';
import type { ParentResolution } from '../app/parent-resolution.js';
import type { CreateSessionResult } from '../app/sessions/create-session.js';
import { serializeSession } from './session-json.js';

/** Wire forms of events, deletion records and create results, shared by every surface. */
export function serializeAttributed(a: (ActorView & { basis: string | null }) | null) {
  return a ? { kind: a.kind, ref: a.ref, display_name: a.displayName, basis: a.basis } : null;
}

export function serializeEvent(e: EventView) {
  return {
    id: e.id,
    session_id: e.sessionId,
    seq: e.seq,
    type: e.type,
    details: e.details,
    actor: serializeAttributed(e.actor),
    cause: serializeAttributed(e.cause),
    credential_id: e.credentialId,
    created_at: e.createdAt,
  };
}

export function serializeDeletion(d: DeletionView) {
  return {
    id: d.id,
    session_id: d.sessionId,
    session_uid: d.sessionUid,
    last_title: d.lastTitle,
    deleted_at: d.deletedAt,
    actor: serializeAttributed(d.actor),
    actor_basis: d.actorBasis,
    cause: serializeAttributed(d.cause),
    cause_basis: d.causeBasis,
    credential_id: d.credentialId,
    owner: d.owner,
    lineage_parent_id: d.lineageParentId,
    via: d.via,
    affected: d.affected,
    event_count: d.eventCount,
    human_message_count: d.humanMessageCount,
  };
}

function serializeParentResolution(r: ParentResolution) {
  return { requested: r.requested, resolved_id: r.resolvedId, basis: r.basis, dropped: r.dropped, source: r.source };
}

export function serializeCreateResult(r: CreateSessionResult) {
  return {
    session: serializeSession(r.session),
    parent_resolution: serializeParentResolution(r.parentResolution),
    creator_resolution: {
      requested: r.creatorResolution.requested,
      resolved_id: r.creatorResolution.resolvedId,
      basis: r.creatorResolution.basis,
      dropped: r.creatorResolution.dropped,
    },
    ...(r.sessionToken ? { session_token: r.sessionToken } : {}),
    ...(r.sessionTokenSuperseded ? { session_token_superseded: true } : {}),
  };
}
