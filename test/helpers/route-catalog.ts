import type { Act } from '../../src/core/permissions.js';
import type { Harness } from './harness.js';
import { callTool, mcpClient } from './mcp-client.js';

/**
 * Every route and MCP tool with the act of spec 01's table it is judged by. The authorization
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
}

const rest =
  (method: string, path: (id: number) => string, body?: (id: number) => unknown) =>
  async (h: Harness, token: string, id: number) => {
    const r = await h.request(method, path(id), { token, ...(body ? { body: body(id) } : {}) });
    return { status: r.status, error: r.body?.error };
  };

/** MCP tool calls map onto HTTP-like statuses so one matrix judges both surfaces. */
const mcp =
  (tool: string, args: (id: number) => Record<string, unknown>) =>
  async (h: Harness, token: string, id: number) => {
    const client = await mcpClient(h, token);
    try {
      const r = await callTool(client, tool, args(id));
      if (!r.isError) return { status: 200 };
      const error = String(r.data?.error ?? '');
      const status = error === 'forbidden' || error === 'token-superseded' || error === 'session-not-live' ? 403 : error === 'session-not-found' ? 404 : 409;
      return { status, error };
    } finally {
      await client.close();
    }
  };

export const ROUTE_CATALOG: CatalogEntry[] = [
  { name: 'GET /sessions', act: 'read', targeted: false, call: rest('GET', () => '/api/v1/sessions') },
  { name: 'GET /sessions/:ref', act: 'read', targeted: true, call: rest('GET', (id) => `/api/v1/sessions/${id}`) },
  { name: 'GET /sessions/:ref/events', act: 'read', targeted: true, call: rest('GET', (id) => `/api/v1/sessions/${id}/events`) },
  { name: 'GET /sessions/:ref/transcript', act: 'read', targeted: true, call: rest('GET', (id) => `/api/v1/sessions/${id}/transcript`) },
  { name: 'GET /session_deletions', act: 'read', targeted: false, call: rest('GET', () => '/api/v1/session_deletions') },
  { name: 'POST /sessions', act: 'create', targeted: false, call: rest('POST', () => '/api/v1/sessions', () => ({ title: 'matrix' })) },
  { name: 'POST /sessions/:ref/attach', act: 'attach', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/attach`) },
  { name: 'PATCH /sessions/:ref', act: 'patch', targeted: true, call: rest('PATCH', (id) => `/api/v1/sessions/${id}`, () => ({ title: 'renamed by matrix' })) },
  { name: 'POST /sessions/:ref/archive', act: 'lifecycle', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/archive`, () => ({})) },
  { name: 'POST /sessions/:ref/unarchive', act: 'lifecycle', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/unarchive`, () => ({})) },
  { name: 'POST /sessions/:ref/resume', act: 'lifecycle', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/resume`, () => ({})) },
  { name: 'POST /sessions/:ref/stop', act: 'lifecycle', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/stop`, () => ({})) },
  { name: 'DELETE /sessions/:ref', act: 'delete', targeted: true, call: rest('DELETE', (id) => `/api/v1/sessions/${id}`) },
  {
    name: 'POST /sessions/:ref/runtime',
    act: 'runtime',
    targeted: true,
    call: rest('POST', (id) => `/api/v1/sessions/${id}/runtime`, () => ({ state: 'idle' })),
  },
  { name: 'POST /sessions/:ref/transcript', act: 'runtime', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/transcript`, () => ({ records: [{ text: 'hi' }] })) },
  // spec 05: agent messages (send-message: session tokens yes, fleet only as a declared acting session — the matrix sends without one — humans, clients, admins no)
  { name: 'POST /messages', act: 'send-message', targeted: true, call: rest('POST', () => '/api/v1/messages', (id) => ({ to: id, payload: 'matrix' })) },
  { name: 'mcp send_message', act: 'send-message', targeted: true, call: mcp('send_message', (id) => ({ to: id, payload: 'matrix via mcp' })) },
  // spec 05: provider conversation history
  { name: 'POST /sessions/:ref/conversation', act: 'runtime', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/conversation`, (id) => ({ provider: 'claude-code', conversation_id: `matrix-${id}` })) },
  { name: 'GET /sessions/:ref/conversations', act: 'read', targeted: true, call: rest('GET', (id) => `/api/v1/sessions/${id}/conversations`) },
  { name: 'POST /conversations/estimated', act: 'admin', targeted: false, call: rest('POST', () => '/api/v1/conversations/estimated', (id) => ({ session_id: id, provider: 'claude-code', conversation_id: `estimated-${id}` })) },
  // lineage, deliveries and the inbox (spec 02, 05)
  { name: 'POST /sessions/:ref/follow_up', act: 'deliver', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/follow_up`, () => ({ content: 'matrix follow-up' })) },
  { name: 'POST /sessions/:ref/enqueued_messages', act: 'deliver', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/enqueued_messages`, () => ({ content: 'matrix enqueue' })) },
  { name: 'POST /sessions/:ref/interrupt', act: 'deliver', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/interrupt`, () => ({ content: 'matrix interrupt' })) },
  {
    name: 'POST /sessions/:ref/enqueued_messages/:mid/send_now',
    act: 'deliver',
    targeted: true,
    call: async (h, token, id) => {
      const mid = (await h.request('POST', `/api/v1/sessions/${id}/enqueued_messages`, { token: h.fleetKey, body: { content: 'queued' } })).body.inbox_item.id;
      const r = await h.request('POST', `/api/v1/sessions/${id}/enqueued_messages/${mid}/send_now`, { token, body: {} });
      return { status: r.status, error: r.body?.error };
    },
  },
  {
    name: 'DELETE /sessions/:ref/enqueued_messages/:mid (withdraw)',
    act: 'deliver',
    targeted: true,
    call: async (h, token, id) => {
      const mid = (await h.request('POST', `/api/v1/sessions/${id}/enqueued_messages`, { token: h.fleetKey, body: { content: 'queued' } })).body.inbox_item.id;
      const r = await h.request('DELETE', `/api/v1/sessions/${id}/enqueued_messages/${mid}`, { token });
      return { status: r.status, error: r.body?.error };
    },
  },
  {
    name: 'DELETE /sessions/:junior/uncle_links/:uncle',
    act: 'remove-uncle',
    targeted: true,
    call: async (h, token, id) => {
      const uncle = (await h.create(h.fleetKey, { title: 'matrix uncle' })).session.id;
      await h.store.kysely
        .insertInto('session_uncles')
        .values({ session_id: id, uncle_session_id: uncle, source: 'rest.follow_up', basis: 'declared', recorded_by_actor_id: null, created_at: new Date().toISOString() })
        .execute();
      const r = await h.request('DELETE', `/api/v1/sessions/${id}/uncle_links/${uncle}`, { token });
      return { status: r.status, error: r.body?.error };
    },
  },
  {
    name: 'PATCH /sessions/:ref parent_session_id',
    act: 'patch-parent',
    targeted: true,
    call: async (h, token, id) => {
      const r = await h.request('PATCH', `/api/v1/sessions/${id}`, { token, body: { parent_session_id: null } });
      return { status: r.status, error: r.body?.error };
    },
  },
  { name: 'POST /sessions/:ref/inbox/lease', act: 'runtime', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/inbox/lease`, () => ({})) },
  { name: 'POST /sessions/:ref/inbox/ack', act: 'runtime', targeted: true, call: rest('POST', (id) => `/api/v1/sessions/${id}/inbox/ack`, () => ({ ids: [] })) },
  { name: 'GET /sessions/:ref/provenance', act: 'read', targeted: true, call: rest('GET', (id) => `/api/v1/sessions/${id}/provenance`) },
  { name: 'GET /sessions/:ref/hierarchy', act: 'read', targeted: true, call: rest('GET', (id) => `/api/v1/sessions/${id}/hierarchy`) },
  { name: 'GET /sessions/:ref/warrant', act: 'read', targeted: true, call: rest('GET', (id) => `/api/v1/sessions/${id}/warrant`) },
  { name: 'mcp get_session_provenance', act: 'read', targeted: true, call: mcp('get_session_provenance', (id) => ({ session_id: id })) },
  { name: 'mcp check_warrant', act: 'read', targeted: true, call: mcp('check_warrant', (id) => ({ session_id: id })) },
  { name: 'mcp action_session follow_up', act: 'deliver', targeted: true, call: mcp('action_session', (id) => ({ action: 'follow_up', session_id: id, content: 'matrix' })) },
  { name: 'mcp manage_enqueued_messages create', act: 'deliver', targeted: true, call: mcp('manage_enqueued_messages', (id) => ({ action: 'create', session_id: id, content: 'matrix' })) },
  { name: 'mcp start_session', act: 'create', targeted: false, call: mcp('start_session', () => ({ title: 'matrix via mcp' })) },
  { name: 'mcp list_sessions', act: 'read', targeted: false, call: mcp('list_sessions', () => ({})) },
  { name: 'mcp get_session', act: 'read', targeted: true, call: mcp('get_session', (id) => ({ session_id: id })) },
  { name: 'mcp action_session archive', act: 'lifecycle', targeted: true, call: mcp('action_session', (id) => ({ action: 'archive', session_id: id })) },
  { name: 'mcp action_session stop', act: 'lifecycle', targeted: true, call: mcp('action_session', (id) => ({ action: 'stop', session_id: id })) },
  { name: 'mcp action_session resume', act: 'lifecycle', targeted: true, call: mcp('action_session', (id) => ({ action: 'resume', session_id: id })) },
  { name: 'mcp action_session unarchive', act: 'lifecycle', targeted: true, call: mcp('action_session', (id) => ({ action: 'unarchive', session_id: id })) },
];
