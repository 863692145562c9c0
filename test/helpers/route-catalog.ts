import { ERROR_STATUS } from '../../src/core/errors.js';
import type { Act, PrincipalKind, TargetRelation } from '../../src/core/permissions.js';
import type { Harness } from './harness.js';
import { callTool, mcpClient } from './mcp-client.js';

/**
 * Every route and MCP tool with the act of docs/design/sessions.md's table it is judged by. The authorization
 * matrix test walks this catalogue for every token kind; each capability adds its entries.
 */
export interface CatalogEntry {
  name: string;
  act: Act;
  /** whether the call names a target session */
  targeted: boolean;
  /** optional: put the (fleet-created) target into the state the call needs */
  prepare?: (h: Harness, targetId: number) => Promise<void>;
  call: (h: Harness, token: string, targetId: number) => Promise<{ status: number; error?: string }>;
  /**
   * Only where the route is not judged by its act's row of docs/design/sessions.md's table: who is allowed
   * (e.g. the `/mcp/self` surface and `message_parent` serve a session token only).
   */
  allowed?: (kind: PrincipalKind, relation: TargetRelation | null) => boolean;
  /** How a refusal looks when it is not `403 forbidden` (an agent message you may not read is a 404, docs/design/sessions.md). */
  denial?: { status: number; error: string };
  /** The session-token principal's session is created with a spawn parent (for the child → parent channel). */
  actorHasParent?: boolean;
  /** What the completeness test matches against the served surfaces: `GET /api/v1/…` or `mcp <tool>` / `mcp/self <tool>`. */
  covers: string;
}

const rest = (method: string, path: (id: number) => string, body?: (id: number) => unknown) => async (h: Harness, token: string, id: number) => {
  const r = await h.request(method, path(id), { token, ...(body ? { body: body(id) } : {}) });
  return { status: r.status, error: r.body?.error };
};

/** A tool error's HTTP meaning, from the one token → status table (so a 500 is never mistaken for a refusal). */
function statusOfToken(error: string): number {
  return (ERROR_STATUS as Record<string, number>)[error] ?? 400;
}

/** MCP tool calls map onto HTTP-like statuses so one matrix judges both surfaces. */
const mcpOn =
  (path: '/mcp' | '/mcp/self') =>
  (tool: string, args: (id: number) => Record<string, unknown>) =>
  async (h: Harness, token: string, id: number): Promise<{ status: number; error?: string }> => {
    let client;
    try {
      client = await mcpClient(h, token, path);
    } catch {
      // the surface itself refused the credential: report the HTTP answer it gives
      const r = await h.request('POST', path, {
        token,
        headers: { accept: 'application/json, text/event-stream' },
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'matrix', version: '0' } },
        },
      });
      return { status: r.status, error: r.body?.error };
    }
    try {
      const r = await callTool(client, tool, args(id));
      if (!r.isError) return { status: 200 };
      const error = String(r.data?.error ?? '');
      return { status: statusOfToken(error), error };
    } finally {
      await client.close();
    }
  };
const mcp = mcpOn('/mcp');
const mcpSelf = mcpOn('/mcp/self');

/** Only a session token's own session: the self surface and the child → parent channel (docs/design/surfaces.md). */
const humanOnly = (kind: PrincipalKind) => kind === 'human' || kind === 'admin';
const sessionSelfOnly = (kind: PrincipalKind, relation: TargetRelation | null) => kind === 'session' && (relation === null || relation.isSelf);

/** An enqueued message on `id`, put there by the fleet; returns its id. */
async function queued(h: Harness, id: number): Promise<number> {
  const r = await h.request('POST', `/api/v1/sessions/${id}/enqueued_messages`, { token: h.fleetKey, body: { content: 'queued' } });
  if (r.status !== 201) throw new Error(`matrix: enqueue failed: ${r.status} ${r.text}`);
  return r.body.inbox_item.id;
}

/** An item on `id` that its runner wrote and the agent never reported taking (`undelivered`); returns its id. */
async function undeliveredOn(h: Harness, id: number): Promise<number> {
  const r = await h.request('POST', `/api/v1/sessions/${id}/follow_up`, { token: h.fleetKey, body: { content: 'written, never taken' } });
  if (r.status !== 201) throw new Error(`matrix: follow-up failed: ${r.status} ${r.text}`);
  const past = new Date(Date.now() - 120_000).toISOString();
  await h.store.kysely
    .updateTable('inbox_items')
    .set({ state: 'undelivered', lease_count: 1, written_at: past, written_deadline: past })
    .where('id', '=', r.body.inbox_item.id)
    .execute();
  return r.body.inbox_item.id;
}

/** An uncle edge onto `id` from a fresh session; returns the uncle's id. */
async function uncleOf(h: Harness, id: number): Promise<number> {
  const uncle = (await h.create(h.fleetKey, { title: 'matrix uncle' })).session.id as number;
  await h.store.kysely
    .insertInto('session_uncles')
    .values({
      session_id: id,
      uncle_session_id: uncle,
      source: 'rest.follow_up',
      basis: 'declared',
      recorded_by_actor_id: null,
      created_at: new Date().toISOString(),
    })
    .execute();
  return uncle;
}

/** An agent message to `id` from a fleet caller declaring a fresh live sender; returns its id. */
async function messageTo(h: Harness, id: number): Promise<string> {
  const sender = await h.create(h.fleetKey, { title: 'matrix sender', attach: true });
  const r = await h.request('POST', '/api/v1/messages', { token: h.fleetKey, body: { to: id, payload: 'matrix', acting_session_id: sender.session.id } });
  if (r.status !== 201) throw new Error(`matrix: send failed: ${r.status} ${r.text}`);
  return r.body.message.id;
}

/** docs/design/sessions.md: an agent message is readable by its sender, its target and admins (and the fleet reads what it sent declared). */
const messageReaders = (kind: PrincipalKind, relation: TargetRelation | null) =>
  kind === 'fleet' || kind === 'admin' || (kind === 'session' && relation?.isSelf === true);
const messageDenial = { status: 404, error: 'message-not-found' };

/** The SSE stream: the status of the response, then the stream is cancelled (it never ends by itself). */
async function sse(h: Harness, token: string): Promise<{ status: number; error?: string }> {
  const res = await h.service.app.request('/api/v1/events/stream', { headers: { authorization: `Bearer ${token}`, host: 'localhost' } });
  if (res.status !== 200) {
    const body = await res.json().catch(() => null);
    return { status: res.status, error: body?.error };
  }
  await res.body?.cancel();
  return { status: res.status };
}

const API = '/api/v1';

export const ROUTE_CATALOG: CatalogEntry[] = [
  { name: 'GET /sessions', covers: `GET ${API}/sessions`, act: 'read', targeted: false, call: rest('GET', () => '/api/v1/sessions') },
  { name: 'GET /sessions/:ref', covers: `GET ${API}/sessions/{ref}`, act: 'read', targeted: true, call: rest('GET', (id) => `/api/v1/sessions/${id}`) },
  {
    name: 'GET /sessions/:ref/events',
    covers: `GET ${API}/sessions/{ref}/events`,
    act: 'read',
    targeted: true,
    call: rest('GET', (id) => `/api/v1/sessions/${id}/events`),
  },
  {
    name: 'GET /sessions/:ref/transcript',
    covers: `GET ${API}/sessions/{ref}/transcript`,
    act: 'read',
    targeted: true,
    call: rest('GET', (id) => `/api/v1/sessions/${id}/transcript`),
  },
  {
    name: 'GET /session_deletions',
    covers: `GET ${API}/session_deletions`,
    act: 'read',
    targeted: false,
    call: rest('GET', () => '/api/v1/session_deletions'),
  },
  // the reverse question (docs/attribution.md "What a person caused"): a read of what the caller may see
  { name: 'GET /events?actor=', covers: `GET ${API}/events`, act: 'read', targeted: false, call: rest('GET', (id) => `/api/v1/events?actor=session:${id}`) },
  {
    name: 'GET /sessions?caused_by=',
    covers: `GET ${API}/sessions`,
    act: 'read',
    targeted: false,
    call: rest('GET', () => '/api/v1/sessions?caused_by=fleet'),
  },
  { name: 'GET /events/stream (SSE)', covers: `GET ${API}/events/stream`, act: 'read', targeted: false, call: sse },
  {
    name: 'POST /sessions',
    covers: `POST ${API}/sessions`,
    act: 'create',
    targeted: false,
    call: rest(
      'POST',
      () => '/api/v1/sessions',
      () => ({ title: 'matrix' }),
    ),
  },
  {
    name: 'POST /sessions/:ref/attach',
    covers: `POST ${API}/sessions/{ref}/attach`,
    act: 'attach',
    targeted: true,
    call: rest('POST', (id) => `/api/v1/sessions/${id}/attach`),
  },
  {
    name: 'PATCH /sessions/:ref',
    covers: `PATCH ${API}/sessions/{ref}`,
    act: 'patch',
    targeted: true,
    call: rest(
      'PATCH',
      (id) => `/api/v1/sessions/${id}`,
      () => ({ title: 'renamed by matrix' }),
    ),
  },
  {
    name: 'POST /sessions/:ref/archive',
    covers: `POST ${API}/sessions/{ref}/archive`,
    act: 'lifecycle',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/archive`,
      () => ({}),
    ),
  },
  {
    name: 'POST /sessions/:ref/unarchive',
    covers: `POST ${API}/sessions/{ref}/unarchive`,
    act: 'lifecycle',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/unarchive`,
      () => ({}),
    ),
  },
  {
    name: 'POST /sessions/:ref/resume',
    covers: `POST ${API}/sessions/{ref}/resume`,
    act: 'lifecycle',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/resume`,
      () => ({}),
    ),
  },
  {
    name: 'POST /sessions/:ref/stop',
    covers: `POST ${API}/sessions/{ref}/stop`,
    act: 'lifecycle',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/stop`,
      () => ({}),
    ),
  },
  {
    name: 'DELETE /sessions/:ref',
    covers: `DELETE ${API}/sessions/{ref}`,
    act: 'delete',
    targeted: true,
    call: rest('DELETE', (id) => `/api/v1/sessions/${id}`),
  },
  {
    name: 'POST /sessions/:ref/runtime',
    covers: `POST ${API}/sessions/{ref}/runtime`,
    act: 'runtime-report',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/runtime`,
      () => ({ state: 'idle' }),
    ),
  },
  {
    name: 'POST /sessions/:ref/transcript',
    covers: `POST ${API}/sessions/{ref}/transcript`,
    act: 'runtime-report',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/transcript`,
      (id) => ({ provider: 'claude-code', conversation_id: `matrix-${id}`, offset: 0, lines: ['{"type":"user"}'] }),
    ),
  },
  {
    name: 'GET /sessions/:ref/transcript/position',
    covers: `GET ${API}/sessions/{ref}/transcript/position`,
    act: 'read',
    targeted: true,
    call: rest('GET', (id) => `/api/v1/sessions/${id}/transcript/position?provider=claude-code&conversation_id=matrix-${id}`),
  },
  // agent runtimes: only the session's own token creates its subagents' sessions
  {
    name: 'POST /sessions/:ref/children',
    covers: `POST ${API}/sessions/{ref}/children`,
    act: 'create-runtime-child',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/children`,
      (id) => ({ origin: 'subagent', provider: 'claude-code', conversation_id: `matrix-agent-${id}`, agent_root: 'Explore' }),
    ),
  },
  // docs/design/messages.md: agent messages (send-message: session tokens yes, fleet only as a declared acting session —
  // the matrix sends without one — humans, clients, admins no)
  {
    name: 'POST /messages',
    covers: `POST ${API}/messages`,
    act: 'send-message',
    targeted: true,
    call: rest(
      'POST',
      () => '/api/v1/messages',
      (id) => ({ to: id, payload: 'matrix' }),
    ),
  },
  {
    name: 'mcp send_message',
    covers: 'mcp send_message',
    act: 'send-message',
    targeted: true,
    call: mcp('send_message', (id) => ({ to: id, payload: 'matrix via mcp' })),
  },
  {
    name: 'GET /messages/:id (a message to the target)',
    covers: `GET ${API}/messages/{id}`,
    act: 'read',
    targeted: true,
    allowed: messageReaders,
    denial: messageDenial,
    call: async (h, token, id) => {
      const mid = await messageTo(h, id);
      const r = await h.request('GET', `/api/v1/messages/${mid}`, { token });
      return { status: r.status, error: r.body?.error };
    },
  },
  {
    name: 'mcp get_message (a message to the target)',
    covers: 'mcp get_message',
    act: 'read',
    targeted: true,
    allowed: messageReaders,
    denial: messageDenial,
    call: async (h, token, id) => {
      const mid = await messageTo(h, id);
      return mcp('get_message', () => ({ message_id: mid }))(h, token, id);
    },
  },
  // docs/design/messages.md: provider conversation history
  {
    name: 'POST /sessions/:ref/conversation',
    covers: `POST ${API}/sessions/{ref}/conversation`,
    act: 'runtime-report',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/conversation`,
      (id) => ({ provider: 'claude-code', conversation_id: `matrix-${id}` }),
    ),
  },
  {
    name: 'GET /sessions/:ref/conversations',
    covers: `GET ${API}/sessions/{ref}/conversations`,
    act: 'read',
    targeted: true,
    call: rest('GET', (id) => `/api/v1/sessions/${id}/conversations`),
  },
  {
    name: 'POST /conversations/estimated',
    covers: `POST ${API}/conversations/estimated`,
    act: 'admin',
    targeted: false,
    call: rest(
      'POST',
      () => '/api/v1/conversations/estimated',
      (id) => ({ session_id: id, provider: 'claude-code', conversation_id: `estimated-${id}` }),
    ),
  },
  // the audit log's checkpoints and Merkle proofs (docs/audit-log.md): admins, like every audit read
  // a node's metrics (docs/operations.md): the fleet key or an admin
  { name: 'GET /metrics', covers: 'GET /metrics', act: 'metrics', targeted: false, call: rest('GET', () => '/metrics') },
  { name: 'GET /audit/checkpoint', covers: `GET ${API}/audit/checkpoint`, act: 'admin', targeted: false, call: rest('GET', () => '/api/v1/audit/checkpoint') },
  {
    name: 'GET /audit/proofs/inclusion',
    covers: `GET ${API}/audit/proofs/inclusion`,
    act: 'admin',
    targeted: false,
    call: rest('GET', () => '/api/v1/audit/proofs/inclusion?seq=1'),
  },
  {
    name: 'GET /audit/proofs/consistency',
    covers: `GET ${API}/audit/proofs/consistency`,
    act: 'admin',
    targeted: false,
    call: rest('GET', () => '/api/v1/audit/proofs/consistency?from=1'),
  },
  {
    name: 'mcp get_audit_proof',
    covers: 'mcp get_audit_proof',
    act: 'admin',
    targeted: false,
    call: mcp('get_audit_proof', () => ({ kind: 'inclusion', seq: 1 })),
  },
  // lineage, deliveries and the inbox (docs/design/lineage.md, docs/design/messages.md)
  {
    name: 'POST /sessions/:ref/follow_up',
    covers: `POST ${API}/sessions/{ref}/follow_up`,
    act: 'deliver',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/follow_up`,
      () => ({ content: 'matrix follow-up' }),
    ),
  },
  {
    name: 'POST /sessions/:ref/enqueued_messages',
    covers: `POST ${API}/sessions/{ref}/enqueued_messages`,
    act: 'deliver',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/enqueued_messages`,
      () => ({ content: 'matrix enqueue' }),
    ),
  },
  {
    name: 'GET /sessions/:ref/enqueued_messages',
    covers: `GET ${API}/sessions/{ref}/enqueued_messages`,
    act: 'read',
    targeted: true,
    call: rest('GET', (id) => `/api/v1/sessions/${id}/enqueued_messages`),
  },
  {
    name: 'POST /sessions/:ref/interrupt',
    covers: `POST ${API}/sessions/{ref}/interrupt`,
    act: 'deliver',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/interrupt`,
      () => ({ content: 'matrix interrupt' }),
    ),
  },
  {
    name: 'POST /sessions/:ref/enqueued_messages/:mid/send_now',
    covers: `POST ${API}/sessions/{ref}/enqueued_messages/{mid}/send_now`,
    act: 'deliver',
    targeted: true,
    call: async (h, token, id) => {
      const mid = await queued(h, id);
      const r = await h.request('POST', `/api/v1/sessions/${id}/enqueued_messages/${mid}/send_now`, { token, body: {} });
      return { status: r.status, error: r.body?.error };
    },
  },
  {
    name: 'POST /sessions/:ref/enqueued_messages/:mid/interrupt',
    covers: `POST ${API}/sessions/{ref}/enqueued_messages/{mid}/interrupt`,
    act: 'deliver',
    targeted: true,
    call: async (h, token, id) => {
      const mid = await queued(h, id);
      const r = await h.request('POST', `/api/v1/sessions/${id}/enqueued_messages/${mid}/interrupt`, { token, body: {} });
      return { status: r.status, error: r.body?.error };
    },
  },
  {
    name: 'DELETE /sessions/:ref/enqueued_messages/:mid (withdraw)',
    covers: `DELETE ${API}/sessions/{ref}/enqueued_messages/{mid}`,
    act: 'deliver',
    targeted: true,
    call: async (h, token, id) => {
      const mid = await queued(h, id);
      const r = await h.request('DELETE', `/api/v1/sessions/${id}/enqueued_messages/${mid}`, { token });
      return { status: r.status, error: r.body?.error };
    },
  },
  {
    name: 'DELETE /sessions/:junior/uncle_links/:uncle',
    covers: `DELETE ${API}/sessions/{junior}/uncle_links/{uncle}`,
    act: 'remove-uncle',
    targeted: true,
    call: async (h, token, id) => {
      const uncle = await uncleOf(h, id);
      const r = await h.request('DELETE', `/api/v1/sessions/${id}/uncle_links/${uncle}`, { token });
      return { status: r.status, error: r.body?.error };
    },
  },
  {
    name: 'PATCH /sessions/:ref parent_session_id',
    covers: `PATCH ${API}/sessions/{ref}`,
    act: 'patch-parent',
    targeted: true,
    call: async (h, token, id) => {
      const r = await h.request('PATCH', `/api/v1/sessions/${id}`, { token, body: { parent_session_id: null } });
      return { status: r.status, error: r.body?.error };
    },
  },
  {
    name: 'GET /sessions/:ref/inbox',
    covers: `GET ${API}/sessions/{ref}/inbox`,
    act: 'read',
    targeted: true,
    call: rest('GET', (id) => `/api/v1/sessions/${id}/inbox`),
  },
  {
    name: 'POST /sessions/:ref/inbox/lease',
    covers: `POST ${API}/sessions/{ref}/inbox/lease`,
    act: 'runtime',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/inbox/lease`,
      () => ({}),
    ),
  },
  {
    name: 'POST /sessions/:ref/inbox/ack',
    covers: `POST ${API}/sessions/{ref}/inbox/ack`,
    act: 'runtime',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/inbox/ack`,
      () => ({ ids: [] }),
    ),
  },
  {
    name: 'POST /sessions/:ref/inbox/written',
    covers: `POST ${API}/sessions/{ref}/inbox/written`,
    act: 'runtime',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/inbox/written`,
      () => ({ ids: [] }),
    ),
  },
  {
    name: 'POST /sessions/:ref/prompts',
    covers: `POST ${API}/sessions/{ref}/prompts`,
    act: 'runtime',
    targeted: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/prompts`,
      () => ({ digest: '0'.repeat(64), length: 0 }),
    ),
  },
  // docs/design/terminal-channel.md: a human token mints the witness; only the witness reports the terminal
  {
    name: 'POST /sessions/:ref/witness',
    covers: `POST ${API}/sessions/{ref}/witness`,
    act: 'attach',
    targeted: true,
    allowed: humanOnly,
    denial: { status: 403, error: 'witness-needs-human-token' },
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/witness`,
      () => ({}),
    ),
  },
  {
    name: 'POST /sessions/:ref/run-prompt',
    covers: `POST ${API}/sessions/{ref}/run-prompt`,
    act: 'attach',
    targeted: true,
    allowed: humanOnly,
    denial: { status: 403, error: 'witness-needs-human-token' },
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/run-prompt`,
      () => ({ text: 'matrix prompt' }),
    ),
  },
  ...(
    [
      ['turns', { digest: '0'.repeat(64), length: 1, reliable: true, pasted: false }],
      ['prompts', { turn_id: 1, text: 'matrix', pasted: false, witness_isolation: 'same-uid' }],
      ['close', { turns: 0 }],
      ['alive', {}],
    ] as const
  ).map(([leaf, body]): CatalogEntry => ({
    name: `POST /sessions/:ref/terminal/${leaf}`,
    covers: `POST ${API}/sessions/{ref}/terminal/${leaf}`,
    act: 'runtime',
    targeted: true,
    // the witness credential only, which no principal of the table holds
    allowed: () => false,
    denial: { status: 403, error: 'witness-credential-scope' },
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/terminal/${leaf}`,
      () => body,
    ),
  })),
  {
    name: 'POST /inbox/:item_id/resend',
    covers: `POST ${API}/inbox/{item_id}/resend`,
    act: 'deliver',
    targeted: true,
    // addressed by item, not session: an item of a session you cannot see is a missing item
    denial: { status: 404, error: 'inbox-item-not-found' },
    call: async (h, token, id) => {
      const item = await undeliveredOn(h, id);
      const r = await h.request('POST', `/api/v1/inbox/${item}/resend`, { token, body: {} });
      return { status: r.status, error: r.body?.error };
    },
  },
  // docs/design/surfaces.md: child → parent, a session token of that very session only
  {
    name: 'POST /sessions/:ref/message_parent',
    covers: `POST ${API}/sessions/{ref}/message_parent`,
    act: 'deliver',
    targeted: true,
    allowed: sessionSelfOnly,
    actorHasParent: true,
    call: rest(
      'POST',
      (id) => `/api/v1/sessions/${id}/message_parent`,
      () => ({ content: 'matrix to my parent' }),
    ),
  },
  {
    name: 'GET /sessions/:ref/provenance',
    covers: `GET ${API}/sessions/{ref}/provenance`,
    act: 'read',
    targeted: true,
    call: rest('GET', (id) => `/api/v1/sessions/${id}/provenance`),
  },
  {
    name: 'GET /sessions/:ref/hierarchy',
    covers: `GET ${API}/sessions/{ref}/hierarchy`,
    act: 'read',
    targeted: true,
    call: rest('GET', (id) => `/api/v1/sessions/${id}/hierarchy`),
  },
  {
    name: 'GET /sessions/:ref/warrant',
    covers: `GET ${API}/sessions/{ref}/warrant`,
    act: 'read',
    targeted: true,
    call: rest('GET', (id) => `/api/v1/sessions/${id}/warrant`),
  },
  {
    name: 'mcp get_session_provenance',
    covers: 'mcp get_session_provenance',
    act: 'read',
    targeted: true,
    call: mcp('get_session_provenance', (id) => ({ session_id: id })),
  },
  { name: 'mcp check_warrant', covers: 'mcp check_warrant', act: 'read', targeted: true, call: mcp('check_warrant', (id) => ({ session_id: id })) },
  {
    name: 'mcp action_session follow_up',
    covers: 'mcp action_session',
    act: 'deliver',
    targeted: true,
    call: mcp('action_session', (id) => ({ action: 'follow_up', session_id: id, content: 'matrix' })),
  },
  {
    name: 'mcp action_session remove_uncle',
    covers: 'mcp action_session',
    act: 'remove-uncle',
    targeted: true,
    call: async (h, token, id) => {
      const uncle = await uncleOf(h, id);
      return mcp('action_session', () => ({ action: 'remove_uncle', session_id: id, uncle_session_id: uncle }))(h, token, id);
    },
  },
  {
    name: 'mcp manage_enqueued_messages create',
    covers: 'mcp manage_enqueued_messages',
    act: 'deliver',
    targeted: true,
    call: mcp('manage_enqueued_messages', (id) => ({ action: 'create', session_id: id, content: 'matrix' })),
  },
  {
    name: 'mcp manage_enqueued_messages list',
    covers: 'mcp manage_enqueued_messages',
    act: 'read',
    targeted: true,
    call: mcp('manage_enqueued_messages', (id) => ({ action: 'list', session_id: id })),
  },
  {
    name: 'mcp manage_enqueued_messages send_now',
    covers: 'mcp manage_enqueued_messages',
    act: 'deliver',
    targeted: true,
    call: async (h, token, id) => {
      const mid = await queued(h, id);
      return mcp('manage_enqueued_messages', () => ({ action: 'send_now', session_id: id, message_id: mid }))(h, token, id);
    },
  },
  {
    name: 'mcp manage_enqueued_messages withdraw',
    covers: 'mcp manage_enqueued_messages',
    act: 'deliver',
    targeted: true,
    call: async (h, token, id) => {
      const mid = await queued(h, id);
      return mcp('manage_enqueued_messages', () => ({ action: 'withdraw', session_id: id, message_id: mid }))(h, token, id);
    },
  },
  {
    name: 'mcp manage_enqueued_messages interrupt',
    covers: 'mcp manage_enqueued_messages',
    act: 'deliver',
    targeted: true,
    call: mcp('manage_enqueued_messages', (id) => ({ action: 'interrupt', session_id: id, content: 'matrix interrupt' })),
  },
  { name: 'mcp start_session', covers: 'mcp start_session', act: 'create', targeted: false, call: mcp('start_session', () => ({ title: 'matrix via mcp' })) },
  { name: 'mcp list_sessions', covers: 'mcp list_sessions', act: 'read', targeted: false, call: mcp('list_sessions', () => ({})) },
  {
    name: 'mcp list_events',
    covers: 'mcp list_events',
    act: 'read',
    targeted: false,
    call: mcp('list_events', (id) => ({ cause: 'fleet', actor: `session:${id}` })),
  },
  { name: 'mcp get_session', covers: 'mcp get_session', act: 'read', targeted: true, call: mcp('get_session', (id) => ({ session_id: id })) },
  {
    name: 'mcp action_session archive',
    covers: 'mcp action_session',
    act: 'lifecycle',
    targeted: true,
    call: mcp('action_session', (id) => ({ action: 'archive', session_id: id })),
  },
  {
    name: 'mcp action_session stop',
    covers: 'mcp action_session',
    act: 'lifecycle',
    targeted: true,
    call: mcp('action_session', (id) => ({ action: 'stop', session_id: id })),
  },
  {
    name: 'mcp action_session resume',
    covers: 'mcp action_session',
    act: 'lifecycle',
    targeted: true,
    call: mcp('action_session', (id) => ({ action: 'resume', session_id: id })),
  },
  {
    name: 'mcp action_session unarchive',
    covers: 'mcp action_session',
    act: 'lifecycle',
    targeted: true,
    call: mcp('action_session', (id) => ({ action: 'unarchive', session_id: id })),
  },
  // docs/design/surfaces.md: the self_session surface serves a session token only, acting on its own session
  {
    name: 'mcp/self get_session',
    covers: 'mcp/self get_session',
    act: 'read',
    targeted: false,
    allowed: sessionSelfOnly,
    call: mcpSelf('get_session', () => ({})),
  },
  {
    name: 'mcp/self get_session_provenance',
    covers: 'mcp/self get_session_provenance',
    act: 'read',
    targeted: false,
    allowed: sessionSelfOnly,
    call: mcpSelf('get_session_provenance', () => ({})),
  },
  {
    name: 'mcp/self check_warrant',
    covers: 'mcp/self check_warrant',
    act: 'read',
    targeted: false,
    allowed: sessionSelfOnly,
    call: mcpSelf('check_warrant', () => ({})),
  },
  {
    name: 'mcp/self read_inbox',
    covers: 'mcp/self read_inbox',
    act: 'runtime',
    targeted: false,
    allowed: sessionSelfOnly,
    call: mcpSelf('read_inbox', () => ({})),
  },
  {
    name: 'mcp/self message_parent',
    covers: 'mcp/self message_parent',
    act: 'deliver',
    targeted: false,
    allowed: sessionSelfOnly,
    actorHasParent: true,
    call: mcpSelf('message_parent', () => ({ content: 'matrix to my parent' })),
  },
  {
    name: 'mcp/self send_message (to another live session)',
    covers: 'mcp/self send_message',
    act: 'send-message',
    targeted: false,
    allowed: sessionSelfOnly,
    call: async (h, token, id) => {
      const peer = (await h.create(h.fleetKey, { title: 'matrix peer', attach: true })).session.id as number;
      return mcpSelf('send_message', () => ({ to: peer, payload: 'matrix via self' }))(h, token, id);
    },
  },
  {
    name: 'mcp/self get_message (a message to itself)',
    covers: 'mcp/self get_message',
    act: 'read',
    targeted: false,
    allowed: sessionSelfOnly,
    call: async (h, token, id) => {
      const mid = await messageTo(h, id);
      return mcpSelf('get_message', () => ({ message_id: mid }))(h, token, id);
    },
  },
];

/** Served routes that take no bearer credential (docs/design/sessions.md; Slack signs its own route) and so have no row in the matrix. */
export const UNAUTHENTICATED_ROUTES = [`GET ${API}/health`, `GET ${API}/openapi.json`, 'POST /integrations/slack/events'];
