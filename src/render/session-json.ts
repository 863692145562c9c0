import type { ActorView, SessionView } from '../app/views.js';

/** The wire form (snake_case) of a session, shared by REST, MCP, CLI and live events. */
function serializeActor(actor: ActorView | null) {
  if (!actor) return null;
  return { kind: actor.kind, ref: actor.ref, display_name: actor.displayName };
}

export function serializeSession(s: SessionView) {
  return {
    id: s.id,
    uid: s.uid,
    title: s.title,
    slug: s.slug,
    status: s.status,
    owner: s.owner,
    agent_root: s.agentRoot,
    genesis: s.genesis,
    scheduling_class: s.schedulingClass,
    parent_session_id: s.parentSessionId,
    parent_basis: s.parentBasis,
    lineage_parent_id: s.lineageParentId,
    creator: serializeActor(s.creator),
    creator_basis: s.creatorBasis,
    cause: serializeActor(s.cause),
    cause_basis: s.causeBasis,
    model: s.model,
    starred: s.starred,
    messaging: s.messaging,
    provider: s.provider,
    provider_conversation: s.providerConversation,
    runtime_parent_id: s.runtimeParentId,
    runtime_origin: s.runtimeOrigin,
    activation: s.activation,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    ...(s.customMetadata !== undefined ? { custom_metadata: s.customMetadata } : {}),
  };
}
