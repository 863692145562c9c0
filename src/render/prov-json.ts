import type { ProvAgentMessage, ProvSource } from '../app/exports/prov-document.js';
import { HIDDEN_SESSION_LABEL } from '../core/actors.js';

/**
 * W3C PROV-JSON (docs/integrations.md): a session is a `prov:Activity` associated with its agent; a spawn
 * is `wasStartedBy` with the parent link's basis; an uncle edge is `wasInformedBy` typed `warrant:Uncle`;
 * the cause is `actedOnBehalfOf`; a human message is an entity `wasAttributedTo` the person, generated at
 * its time and `used` by its session (a keyed digest, never the words); an agent message is an entity
 * `wasGeneratedBy` the sending session and `used` by the target when delivered, a reply `wasDerivedFrom`
 * its original; a deletion or a withdrawal is `wasInvalidatedBy`. Every `prov:type` is a qualified name,
 * so PROV tooling recognises `prov:Person` and `prov:SoftwareAgent`.
 */
type Attrs = Record<string, unknown>;
type QualifiedName = { $: string; type: 'prov:QUALIFIED_NAME' };

const qn = (name: string): QualifiedName => ({ $: name, type: 'prov:QUALIFIED_NAME' });

const PREFIX = {
  warrant: 'https://warrant.dev/ns/prov#',
  session: 'urn:warrant:session:',
  agent: 'urn:warrant:agent:',
  human: 'urn:warrant:human:',
  client: 'urn:warrant:client:',
  msg: 'urn:warrant:human-message:',
  amsg: 'urn:warrant:agent-message:',
  deletion: 'urn:warrant:deletion:',
  withdrawal: 'urn:warrant:withdrawal:',
};

/** Every section the export may write, in PROV-JSON's names. */
const SECTIONS = [
  'entity',
  'activity',
  'agent',
  'wasGeneratedBy',
  'used',
  'wasInformedBy',
  'wasStartedBy',
  'wasInvalidatedBy',
  'wasDerivedFrom',
  'wasAttributedTo',
  'wasAssociatedWith',
  'actedOnBehalfOf',
] as const;
type Section = (typeof SECTIONS)[number];

function responsibleId(cause: NonNullable<ReturnType<ProvSource['sessions']['get']>>['cause']): { id: string; attrs: Attrs } | null {
  if (!cause) return null;
  switch (cause.kind) {
    case 'human':
      return {
        id: `human:${cause.ref ?? 'unknown'}`,
        attrs: { 'prov:type': qn('prov:Person'), ...(cause.displayName ? { 'prov:label': cause.displayName } : {}) },
      };
    case 'session':
      // a session the reader may not see: one anonymous agent, no id
      if (cause.ref === null) return { id: 'agent:session-hidden', attrs: { 'prov:type': qn('prov:SoftwareAgent'), 'prov:label': HIDDEN_SESSION_LABEL } };
      return { id: `agent:session-${cause.ref}`, attrs: { 'prov:type': qn('prov:SoftwareAgent'), 'warrant:session_id': Number(cause.ref) } };
    case 'client':
      return { id: `client:${cause.ref}`, attrs: { 'prov:type': qn('prov:SoftwareAgent'), 'prov:label': `client ${cause.ref}` } };
    default:
      return {
        id: `warrant:${cause.kind}`,
        attrs: { 'prov:type': qn(cause.kind === 'fleet' ? 'prov:SoftwareAgent' : 'prov:Agent'), 'prov:label': cause.kind },
      };
  }
}

/** The message's types: every message is a `warrant:AgentMessage`; one that ended undelivered says how. */
function agentMessageTypes(m: ProvAgentMessage): QualifiedName | QualifiedName[] {
  if (m.state === 'failed') return [qn('warrant:AgentMessage'), qn('warrant:FailedMessage')];
  if (m.state === 'expired') return [qn('warrant:AgentMessage'), qn('warrant:ExpiredMessage')];
  return qn('warrant:AgentMessage');
}

export function renderProvJson(src: ProvSource) {
  const h = src.provenance.hierarchy;
  const inTree = new Set(h.nodes.map((n) => n.id));
  const doc = Object.fromEntries(SECTIONS.map((s) => [s, {}])) as Record<Section, Record<string, Attrs>>;
  for (const n of h.nodes) {
    const s = src.sessions.get(n.id);
    const activity = `session:${n.id}`;
    const agent = `agent:session-${n.id}`;
    doc.activity[activity] = {
      'prov:type': qn('warrant:Session'),
      'prov:label': n.title ?? `session #${n.id}`,
      ...(s ? { 'prov:startTime': s.createdAt } : {}),
      ...(s?.endedAt ? { 'prov:endTime': s.endedAt } : {}),
      'warrant:uid': n.uid,
      'warrant:status': n.status,
      'warrant:genesis': n.genesis,
      'warrant:scheduling_class': n.schedulingClass,
      ...(n.isCurrent ? { 'warrant:is_current': true } : {}),
    };
    doc.agent[agent] = {
      'prov:type': qn('prov:SoftwareAgent'),
      'prov:label': n.agentRoot ?? 'agent',
      'warrant:session_id': n.id,
      ...(n.agentRoot ? { 'warrant:agent_root': n.agentRoot } : {}),
    };
    doc.wasAssociatedWith[`_:assoc-${n.id}`] = { 'prov:activity': activity, 'prov:agent': agent };
    // the spawn edge: the render parent when it is the spawn parent, else where the line says it is
    const spawnParent = n.spawnEdge
      ? n.renderParentId
      : n.drawnUnder?.reason === 'uncle' && n.drawnUnder.spawnParent.kind === 'in-tree'
        ? n.drawnUnder.spawnParent.id
        : null;
    if (spawnParent !== null && inTree.has(spawnParent)) {
      doc.wasStartedBy[`_:start-${n.id}`] = {
        'prov:activity': activity,
        'prov:starter': `session:${spawnParent}`,
        ...(s ? { 'prov:time': s.createdAt } : {}),
        'prov:type': qn('warrant:Spawn'),
        'warrant:basis': s?.parentBasis ?? 'none',
      };
    }
    for (const u of n.alsoSenior) {
      doc.wasInformedBy[`_:uncle-${u.id}-${n.id}`] = {
        'prov:informed': activity,
        'prov:informant': `session:${u.id}`,
        'prov:type': qn('warrant:Uncle'),
        'warrant:basis': u.basis,
      };
    }
    const responsible = responsibleId(s?.cause ?? null);
    if (responsible) {
      doc.agent[responsible.id] ??= responsible.attrs;
      doc.actedOnBehalfOf[`_:cause-${n.id}`] = {
        'prov:delegate': agent,
        'prov:responsible': responsible.id,
        'prov:activity': activity,
        'warrant:basis': s?.cause?.basis ?? 'none',
      };
    }
  }
  for (const m of src.messages) {
    const entity = `msg:${m.id}`;
    const person = `human:${m.author.key ?? m.author.capturedKey}`;
    doc.agent[person] ??= { 'prov:type': qn('prov:Person'), ...(m.author.displayName ? { 'prov:label': m.author.displayName } : {}) };
    doc.entity[entity] = {
      'prov:type': qn('warrant:HumanMessage'),
      'warrant:entry_point': m.entryPoint,
      'warrant:channel': m.channel,
      'warrant:content_hmac_sha256': m.contentHmac,
      // docs/design/terminal-channel.md: a witnessed terminal prompt says how far the agent was kept from its witness
      ...(m.witnessIsolation ? { 'warrant:witness_isolation': m.witnessIsolation } : {}),
    };
    doc.wasGeneratedBy[`_:said-${m.id}`] = { 'prov:entity': entity, 'prov:time': m.createdAt };
    doc.wasAttributedTo[`_:author-${m.id}`] = { 'prov:entity': entity, 'prov:agent': person };
    if (inTree.has(m.sessionId)) doc.used[`_:heard-${m.id}`] = { 'prov:activity': `session:${m.sessionId}`, 'prov:entity': entity, 'prov:time': m.createdAt };
    if (m.withdrawnAt) {
      doc.activity[`withdrawal:${m.id}`] = { 'prov:type': qn('warrant:Withdrawal'), 'prov:startTime': m.withdrawnAt, 'prov:endTime': m.withdrawnAt };
      doc.wasInvalidatedBy[`_:withdrawn-${m.id}`] = { 'prov:entity': entity, 'prov:activity': `withdrawal:${m.id}`, 'prov:time': m.withdrawnAt };
    }
  }
  const agentMessageIds = new Set(src.agentMessages.map((m) => m.id));
  for (const m of src.agentMessages) {
    const entity = `amsg:${m.id}`;
    doc.entity[entity] = {
      'prov:type': agentMessageTypes(m),
      'warrant:conversation_ref': m.conversationRef,
      'warrant:state': m.state,
      ...(m.terminalReason && m.state !== 'delivered' ? { 'warrant:terminal_reason': m.terminalReason } : {}),
    };
    doc.wasGeneratedBy[`_:sent-${m.id}`] = {
      'prov:entity': entity,
      'prov:activity': `session:${m.sourceSessionId}`,
      'prov:time': m.acceptedAt,
      'warrant:basis': m.sourceBasis,
    };
    if (m.state === 'delivered' && m.terminalAt) {
      doc.used[`_:received-${m.id}`] = { 'prov:activity': `session:${m.targetSessionId}`, 'prov:entity': entity, 'prov:time': m.terminalAt };
    }
    if (m.replyTo !== null && agentMessageIds.has(m.replyTo)) {
      doc.wasDerivedFrom[`_:reply-${m.id}`] = { 'prov:generatedEntity': entity, 'prov:usedEntity': `amsg:${m.replyTo}`, 'prov:type': qn('warrant:Reply') };
    }
  }
  for (const d of src.deletions) {
    const entity = `session:${d.sessionId}`;
    doc.entity[entity] = { 'prov:type': qn('warrant:DeletedSession'), 'warrant:human_messages': d.humanMessages };
    doc.activity[`deletion:${d.sessionId}`] = { 'prov:type': qn('warrant:Deletion'), 'prov:startTime': d.deletedAt, 'prov:endTime': d.deletedAt };
    doc.wasInvalidatedBy[`_:deleted-${d.sessionId}`] = { 'prov:entity': entity, 'prov:activity': `deletion:${d.sessionId}`, 'prov:time': d.deletedAt };
  }
  const out: Record<string, unknown> = { prefix: PREFIX };
  for (const section of SECTIONS) if (Object.keys(doc[section]).length > 0) out[section] = doc[section];
  return out;
}
