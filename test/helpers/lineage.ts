import { LINEAGE_CHANGED } from '../../src/app/lineage/hierarchy-refresh.js';
import { inWriteTx } from '../../src/app/write-scope.js';
import type { Harness } from './harness.js';

/** Creates a session through REST (spawn edges only come from create) and returns its id. */
export async function spawn(h: Harness, parent: number | null, body: Record<string, unknown> = {}, token = h.fleetKey): Promise<number> {
  const res = await h.create(token, { ...(parent !== null ? { parent_session_id: parent } : {}), ...body });
  if (parent !== null && res.parent_resolution.resolved_id !== parent) throw new Error(`parent ${parent} not resolved: ${JSON.stringify(res.parent_resolution)}`);
  return res.session.id as number;
}

/**
 * Writes an uncle edge row directly (the writer, recordUncleEdge, is another issue's; tests
 * of the walk only need the row, including rows writers would refuse, like cycles).
 */
export async function insertUncle(h: Harness, senior: number, junior: number, basis: 'authenticated' | 'declared' = 'authenticated'): Promise<void> {
  await h.store.kysely
    .insertInto('session_uncles')
    .values({ session_id: junior, uncle_session_id: senior, source: 'rest.follow_up', basis, recorded_by_actor_id: null, created_at: new Date().toISOString() })
    .execute();
}

/** Strips the SQL the legacy-key extraction contributes, so what remains shows which columns a query reads. */
export function withoutLegacyKeyExtraction(sqlText: string): string {
  return sqlText.replace(/cast\(json_extract\([^)]*\) as text\)/g, '<legacy-key>').replace(/\(\([a-z_."]*custom_metadata::jsonb ->> '[a-z_]+'\)\)/g, '<legacy-key>');
}

/**
 * Writes an uncle edge the way graph writers do: the row and a `lineage_changed` live event
 * in one transaction (the event wakes the live refresh after commit).
 */
export async function writeUncleEdge(h: Harness, senior: number, junior: number, basis: 'authenticated' | 'declared' = 'authenticated'): Promise<void> {
  await inWriteTx(
    h.ctx,
    async (w) => {
      await w.tx
        .insertInto('session_uncles')
        .values({ session_id: junior, uncle_session_id: senior, source: 'rest.follow_up', basis, recorded_by_actor_id: null, created_at: w.now })
        .execute();
      const row = await w.tx.selectFrom('sessions').select('owner_user_id').where('id', '=', junior).executeTakeFirstOrThrow();
      w.live({ type: LINEAGE_CHANGED, sessionId: junior, ownerUserId: row.owner_user_id === null ? null : Number(row.owner_user_id), payload: { session_ids: [senior, junior] } });
    },
    { graph: true },
  );
}

/** Removes an uncle edge the way graph writers do (row deleted, `lineage_changed` emitted). */
export async function removeUncleEdgeRow(h: Harness, senior: number, junior: number): Promise<void> {
  await inWriteTx(
    h.ctx,
    async (w) => {
      await w.tx.deleteFrom('session_uncles').where('session_id', '=', junior).where('uncle_session_id', '=', senior).execute();
      w.live({ type: LINEAGE_CHANGED, sessionId: junior, ownerUserId: null, payload: { session_ids: [senior, junior] } });
    },
    { graph: true },
  );
}

/** Reads server-sent events from a streaming response until `until` says stop. */
export async function readSse(
  res: Response,
  until: (events: { event: string; data: string; id: string | null }[]) => boolean,
  maxEvents = 500,
): Promise<{ event: string; data: string; id: string | null }[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: { event: string; data: string; id: string | null }[] = [];
  let buffer = '';
  try {
    while (!until(events) && events.length < maxEvents) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let event = 'message';
        let id: string | null = null;
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          else if (line.startsWith('id:')) id = line.slice(3).trim();
        }
        if (data.length > 0) events.push({ event, data: data.join('\n'), id });
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}
