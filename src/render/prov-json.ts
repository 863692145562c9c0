import type { ProvSource } from '../app/exports/prov-document.js';
import { HIDDEN_SESSION_LABEL } from '../core/actors.js';

/**
 * W3C PROV-JSON (docs/integrations.md): a session is a `prov:Activity` associated with its agent; a spawn
 * is `wasStartedBy`; an uncle edge is `wasInformedBy` with `prov:type warrant:uncle`; the
 * cause is `actedOnBehalfOf`; a human message is an entity `wasAttributedTo` the person
 * (and `used` by its session; a keyed digest, never the words); a deletion is
 * `wasInvalidatedBy`.
 */
type Attrs = Record<string, unknown>;

const PREFIX = {
  warrant: 'https://warrant.dev/ns/prov#',
  session: 'urn:warrant:session:',
  agent: 'urn:warrant:agent:',
  human: 'urn:warrant:human:',
  client: 'urn:warrant:client:',
  msg: 'urn:warrant:human-message:',
  deletion: 'urn:warrant:deletion:',
};

function responsibleId(cause: NonNullable<ReturnType<ProvSource['sessions']['get']>>['cause']): { id: string; attrs: Attrs } | null {
  if (!cause) return null;
  switch (cause.kind) {
    case 'human':
      return { id: `human:${cause.ref ?? 'unknown'}`, attrs: { 'prov:type': 'prov:Person', ...(cause.displayName ? { 'prov:label': cause.displayName } : {}) } };
    case 'session':
      // a session the reader may not see: one anonymous agent, no id
      if (cause.ref === null) return { id: 'agent:session-hidden', attrs: { 'prov:type': 'prov:SoftwareAgent', 'prov:label': HIDDEN_SESSION_LABEL } };
      return { id: `agent:session-${cause.ref}`, attrs: { 'prov:type': 'prov:SoftwareAgent', 'warrant:session_id': Number(cause.ref) } };
    case 'client':
      return { id: `client:${cause.ref}`, attrs: { 'prov:type': 'prov:SoftwareAgent', 'prov:label': `client ${cause.ref}` } };
    default:
      return { id: `warrant:${cause.kind}`, attrs: { 'prov:type': cause.kind === 'fleet' ? 'prov:SoftwareAgent' : 'prov:Agent', 'prov:label': cause.kind } };
  }
}

export function renderProvJson(src: ProvSource) {
  const h = src.provenance.hierarchy;
  const inTree = new Set(h.nodes.map((n) => n.id));
  const doc: Record<string, Record<string, Attrs>> = {
    entity: {},
    activity: {},
    agent: {},
    wasAssociatedWith: {},
    wasStartedBy: {},
    wasInformedBy: {},
    actedOnBehalfOf: {},
    wasAttributedTo: {},
    used: {},
    wasInvalidatedBy: {},
  };
  for (const n of h.nodes) {
    const s = src.sessions.get(n.id);
    const activity = `session:${n.id}`;
    const agent = `agent:session-${n.id}`;
    doc.activity![activity] = {
      'prov:type': 'warrant:Session',
      'prov:label': n.title ?? `session #${n.id}`,
      ...(s ? { 'prov:startTime': s.createdAt } : {}),
      ...(s?.endedAt ? { 'prov:endTime': s.endedAt } : {}),
      'warrant:uid': n.uid,
      'warrant:status': n.status,
      'warrant:genesis': n.genesis,
      'warrant:scheduling_class': n.schedulingClass,
      ...(n.isCurrent ? { 'warrant:is_current': true } : {}),
    };
    doc.agent![agent] = { 'prov:type': 'prov:SoftwareAgent', 'prov:label': n.agentRoot ?? 'agent', 'warrant:session_id': n.id, ...(n.agentRoot ? { 'warrant:agent_root': n.agentRoot } : {}) };
    doc.wasAssociatedWith![`_:assoc-${n.id}`] = { 'prov:activity': activity, 'prov:agent': agent };
    // the spawn edge: the render parent when it is the spawn parent, else where the line says it is
    const spawnParent = n.spawnEdge ? n.renderParentId : n.drawnUnder?.reason === 'uncle' && n.drawnUnder.spawnParent.kind === 'in-tree' ? n.drawnUnder.spawnParent.id : null;
    if (spawnParent !== null && inTree.has(spawnParent)) {
      doc.wasStartedBy![`_:start-${n.id}`] = { 'prov:activity': activity, 'prov:starter': `session:${spawnParent}`, ...(s ? { 'prov:time': s.createdAt } : {}) };
    }
    for (const u of n.alsoSenior) {
      doc.wasInformedBy![`_:uncle-${u.id}-${n.id}`] = { 'prov:informed': activity, 'prov:informant': `session:${u.id}`, 'prov:type': 'warrant:uncle', 'warrant:basis': u.basis };
    }
    const responsible = responsibleId(s?.cause ?? null);
    if (responsible) {
      doc.agent![responsible.id] ??= responsible.attrs;
      doc.actedOnBehalfOf![`_:cause-${n.id}`] = { 'prov:delegate': agent, 'prov:responsible': responsible.id, 'prov:activity': activity, 'warrant:basis': s?.cause?.basis ?? 'none' };
    }
  }
  for (const m of src.messages) {
    const entity = `msg:${m.id}`;
    const person = `human:${m.author.key ?? m.author.capturedKey}`;
    doc.agent![person] ??= { 'prov:type': 'prov:Person', ...(m.author.displayName ? { 'prov:label': m.author.displayName } : {}) };
    doc.entity![entity] = {
      'prov:type': 'warrant:HumanMessage',
      'warrant:entry_point': m.entryPoint,
      'warrant:channel': m.channel,
      'warrant:content_hmac_sha256': m.contentHmac,
      // docs/design/terminal-channel.md: a witnessed terminal prompt says how far the agent was kept from its witness
      ...(m.witnessIsolation ? { 'warrant:witness_isolation': m.witnessIsolation } : {}),
      'prov:generatedAtTime': m.createdAt,
      ...(m.withdrawnAt ? { 'prov:invalidatedAtTime': m.withdrawnAt, 'warrant:withdrawn': true } : {}),
    };
    doc.wasAttributedTo![`_:author-${m.id}`] = { 'prov:entity': entity, 'prov:agent': person };
    if (inTree.has(m.sessionId)) doc.used![`_:heard-${m.id}`] = { 'prov:activity': `session:${m.sessionId}`, 'prov:entity': entity, 'prov:time': m.createdAt };
  }
  for (const d of src.deletions) {
    const entity = `session:${d.sessionId}`;
    doc.entity![entity] = { 'prov:type': 'warrant:DeletedSession', 'warrant:human_messages': d.humanMessages, 'prov:invalidatedAtTime': d.deletedAt };
    doc.activity![`deletion:${d.sessionId}`] = { 'prov:type': 'warrant:Deletion', 'prov:startTime': d.deletedAt, 'prov:endTime': d.deletedAt };
    doc.wasInvalidatedBy![`_:deleted-${d.sessionId}`] = { 'prov:entity': entity, 'prov:activity': `deletion:${d.sessionId}`, 'prov:time': d.deletedAt };
  }
  const out: Record<string, unknown> = { prefix: PREFIX };
  for (const [k, v] of Object.entries(doc)) if (Object.keys(v).length > 0) out[k] = v;
  return out;
}
