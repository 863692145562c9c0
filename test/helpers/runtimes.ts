import type { Harness, TestResponse } from './harness.js';
import { storeSnapshot } from './messages.js';

/** Agent runtimes: subagent children and transcripts appended by offset. */
export function child(h: Harness, token: string, parentId: number, body: Record<string, unknown> = {}): Promise<TestResponse> {
  return h.request('POST', `/api/v1/sessions/${parentId}/children`, {
    token,
    body: { origin: 'subagent', provider: 'claude-code', conversation_id: 'agent-1', ...body },
  });
}

export function append(h: Harness, token: string, sessionId: number, body: Record<string, unknown>): Promise<TestResponse> {
  return h.request('POST', `/api/v1/sessions/${sessionId}/transcript`, { token, body: { provider: 'claude-code', conversation_id: 'conv-1', ...body } });
}

export async function position(h: Harness, token: string, sessionId: number, conversationId = 'conv-1', provider = 'claude-code'): Promise<number> {
  const r = await h.request(
    'GET',
    `/api/v1/sessions/${sessionId}/transcript/position?provider=${encodeURIComponent(provider)}&conversation_id=${encodeURIComponent(conversationId)}`,
    { token },
  );
  if (r.status !== 200) throw new Error(`position: ${r.status} ${r.text}`);
  return r.body.next_offset;
}

export async function records(h: Harness, sessionId: number): Promise<any[]> {
  const r = await h.request('GET', `/api/v1/sessions/${sessionId}/transcript?limit=200`, { token: h.fleetKey });
  if (r.status !== 200) throw new Error(`transcript: ${r.status} ${r.text}`);
  return r.body.records;
}

/** storeSnapshot plus what these routes write: unchanged around a call means it wrote nothing. */
export async function runtimeSnapshot(h: Harness): Promise<Record<string, number>> {
  const out = await storeSnapshot(h);
  for (const table of ['sessions', 'session_transcripts', 'transcript_positions', 'tokens'] as const) {
    const row = await h.store.kysely
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  const versions = await h.store.kysely
    .selectFrom('sessions')
    .select((eb) => eb.fn.sum<number>('version').as('v'))
    .executeTakeFirstOrThrow();
  out.session_versions = Number(versions.v ?? 0);
  return out;
}

/** UTF-8 bytes of lines as a file holds them (one newline each). */
export const fileBytes = (lines: string[]): number => lines.reduce((n, l) => n + Buffer.byteLength(l, 'utf8') + 1, 0);
