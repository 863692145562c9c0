import { expect } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { hashToken } from '../../src/app/credentials.js';
import type { Harness } from './harness.js';

/**
 * Helpers for attribution tests (docs/design/attribution.md). A new event type follows the same pattern:
 *
 *   const [e] = await eventsOf(h, id, ['uncle_linked']);
 *   expectAttribution(e, { actor: session(a.id), actorBasis: 'authenticated', cause: human(key), causeBasis: 'authenticated', credentialId });
 */
export interface WireActor {
  kind: string;
  ref: string | null;
  display_name?: string | null;
  basis?: string | null;
}

export interface WireEvent {
  id: number;
  session_id: number;
  seq: number;
  type: string;
  details: Record<string, any>;
  actor: WireActor | null;
  cause: WireActor | null;
  credential_id: number | null;
  created_at: string;
}

export const human = (key: string) => ({ kind: 'human', ref: key });
export const session = (id: number) => ({ kind: 'session', ref: String(id) });
export const client = (name: string) => ({ kind: 'client', ref: name });
export const fleet = { kind: 'fleet', ref: null };
export const system = { kind: 'system', ref: null };

/** Every event of a session (all pages), read with the fleet key, optionally only some types. */
export async function eventsOf(h: Harness, sessionId: number, types?: string[]): Promise<WireEvent[]> {
  const out: WireEvent[] = [];
  let cursor: string | null = null;
  do {
    const qs = new URLSearchParams({ limit: '200' });
    if (types) qs.set('type', types.join(','));
    if (cursor) qs.set('cursor', cursor);
    const res = await h.request('GET', `/api/v1/sessions/${sessionId}/events?${qs}`, { token: h.fleetKey });
    if (res.status !== 200) throw new Error(`events of #${sessionId}: ${res.status} ${res.text}`);
    out.push(...res.body.events);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

/** The only event of `type` on the session (fails when there are none or several). */
export async function onlyEvent(h: Harness, sessionId: number, type: string): Promise<WireEvent> {
  const events = await eventsOf(h, sessionId, [type]);
  expect(
    events.map((e) => e.type),
    `exactly one ${type} event on #${sessionId}`,
  ).toEqual([type]);
  return events[0]!;
}

export interface ExpectedAttribution {
  actor: { kind: string; ref: string | null } | null;
  actorBasis?: string | null;
  cause: { kind: string; ref: string | null } | null;
  causeBasis?: string | null;
  credentialId?: number | null;
}

export function expectAttribution(event: WireEvent, want: ExpectedAttribution): void {
  const pick = (a: WireActor | null) => (a ? { kind: a.kind, ref: a.ref } : null);
  expect({ actor: pick(event.actor), cause: pick(event.cause) }, `attribution of ${event.type}`).toEqual({ actor: want.actor, cause: want.cause });
  if (want.actorBasis !== undefined) expect(event.actor?.basis ?? null, `actor basis of ${event.type}`).toBe(want.actorBasis);
  if (want.causeBasis !== undefined) expect(event.cause?.basis ?? null, `cause basis of ${event.type}`).toBe(want.causeBasis);
  if (want.credentialId !== undefined) expect(event.credential_id, `credential of ${event.type}`).toBe(want.credentialId);
}

/** The credential id of a token, from the store. */
export async function credentialIdOf(h: Harness, token: string): Promise<number> {
  const row = await h.store.kysely.selectFrom('tokens').select('id').where('token_hash', '=', hashToken(token)).executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The real MCP SDK client, talking to the in-process app over Streamable HTTP. */
export async function mcpClient(h: Harness, token: string, path = '/mcp'): Promise<Client> {
  const c = new Client({ name: 'warrant-tests', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${path}`), {
    fetch: async (url, init) => h.service.app.request(url instanceof URL ? url.toString() : url, init),
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await c.connect(transport);
  return c;
}

/** Calls a tool and returns its structured content, failing on a tool error. */
export async function callTool(c: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await c.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}
