import { sql } from 'kysely';
import { inWriteTx } from '../../src/app/write-scope.js';
import { announceLineageChange } from '../../src/app/lineage/lineage-changes.js';
import { deleteUncleEdge, insertUncleEdge } from '../../src/store/uncles-repo.js';
import { bumpLineageVersions } from '../../src/store/lineage-versions-repo.js';
import pino from 'pino';
import type { Harness } from './harness.js';
import { parseSseBlock } from './sse.js';

/** A session with a live token (created with attach: true). */
export interface Live {
  id: number;
  uid: string;
  token: string;
}

export async function liveSession(h: Harness, token: string, body: Record<string, unknown> = {}): Promise<Live> {
  const r = await h.create(token, { title: 'live', ...body, attach: true });
  return { id: r.session.id, uid: r.session.uid, token: r.session_token };
}

export async function followUp(h: Harness, token: string, target: number, body: Record<string, unknown> = {}) {
  return h.request('POST', `/api/v1/sessions/${target}/follow_up`, { token, body: { content: 'please look at this', ...body } });
}

/** The uncle edges among `ids`, read straight from the table (not through lineage-repo). */
export async function uncleRows(h: Harness, ids: number[]): Promise<{ junior: number; uncle: number; basis: string; source: string }[]> {
  const rows = await h.store.kysely
    .selectFrom('session_uncles')
    .select(['session_id', 'uncle_session_id', 'basis', 'source'])
    .where((eb) => eb.or([eb('session_id', 'in', ids), eb('uncle_session_id', 'in', ids)]))
    .orderBy('session_id')
    .orderBy('uncle_session_id')
    .execute();
  return rows.map((r) => ({ junior: Number(r.session_id), uncle: Number(r.uncle_session_id), basis: r.basis, source: r.source }));
}

export async function eventsOf(h: Harness, id: number, type?: string): Promise<any[]> {
  const r = await h.request('GET', `/api/v1/sessions/${id}/events?limit=200${type ? `&type=${type}` : ''}`, { token: h.fleetKey });
  if (r.status !== 200) throw new Error(`events: ${r.status} ${r.text}`);
  return r.body.events;
}

/**
 * A spawn chain of `length` sessions built with direct inserts (fast), each the spawn child of
 * the previous one; returns the ids, oldest first.
 */
export async function insertSpawnChain(h: Harness, length: number): Promise<number[]> {
  const now = new Date().toISOString();
  const prefix = `chain-${Date.now().toString(16)}-${Math.random().toString(16).slice(2, 8)}`;
  const ids: number[] = [];
  await h.store.kysely.transaction().execute(async (tx) => {
    for (let i = 0; i < length; i += 400) {
      const rows = Array.from({ length: Math.min(400, length - i) }, (_, k) => ({
        uid: `${prefix}-${i + k}`,
        title: `chain ${i + k}`,
        status: 'pending',
        genesis: 'api',
        scheduling_class: 'priority',
        created_at: now,
        updated_at: now,
      }));
      await tx.insertInto('sessions').values(rows).execute();
    }
    const inserted = await tx.selectFrom('sessions').select('id').where('uid', 'like', `${prefix}-%`).orderBy('id').execute();
    ids.push(...inserted.map((r) => Number(r.id)));
    // ids of one sequential batch are contiguous; the single update relies on it
    if (ids[ids.length - 1]! - ids[0]! !== length - 1) throw new Error('chain ids are not contiguous');
    await sql`update sessions set parent_session_id = id - 1, parent_basis = 'declared' where id > ${ids[0]!} and id <= ${ids[ids.length - 1]!}`.execute(tx);
  });
  return ids;
}

/** Replaces the harness logger with one that keeps every line; returns the lines and a restore. */
export function captureLogs(h: Harness): { lines: Record<string, any>[]; restore: () => void } {
  const lines: Record<string, any>[] = [];
  const original = h.ctx.logger;
  h.ctx.logger = pino({ level: 'info' }, { write: (msg: string) => lines.push(JSON.parse(msg)) });
  return { lines, restore: () => (h.ctx.logger = original) };
}

/** A trigger that makes every insert into session_uncles throw (failure injection for a test). */
export async function breakUncleInserts(h: Harness): Promise<() => Promise<void>> {
  const db = h.store.kysely;
  if (h.dialect === 'sqlite') {
    await sql.raw(`create trigger test_fail_uncles before insert on session_uncles begin select raise(abort, 'injected failure'); end`).execute(db);
    return async () => void (await sql.raw('drop trigger test_fail_uncles').execute(db));
  }
  await sql.raw(`create function test_fail_uncles() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`).execute(db);
  await sql.raw('create trigger test_fail_uncles before insert on session_uncles for each row execute function test_fail_uncles()').execute(db);
  return async () => {
    await sql.raw('drop trigger test_fail_uncles on session_uncles').execute(db);
    await sql.raw('drop function test_fail_uncles()').execute(db);
  };
}

/** Independent acyclicity check over spawn (column and legacy key) and uncle edges, straight from the tables. */
export async function findCycle(h: Harness): Promise<number[] | null> {
  const sessions = await h.store.kysely.selectFrom('sessions').select(['id', 'uid', 'parent_session_id', 'parent_basis', 'custom_metadata']).execute();
  const byKey = new Map<string, number>();
  for (const s of sessions) {
    byKey.set(String(s.id), Number(s.id));
    byKey.set(s.uid, Number(s.id));
  }
  const seniors = new Map<number, number[]>();
  const add = (junior: number, senior: number) => seniors.set(junior, [...(seniors.get(junior) ?? []), senior]);
  for (const s of sessions) {
    const id = Number(s.id);
    if (s.parent_basis === 'legacy') {
      const key = (JSON.parse(s.custom_metadata) as Record<string, unknown>).router_session_id;
      const p = key === undefined || key === null ? undefined : byKey.get(String(key));
      if (p !== undefined) add(id, p);
    } else if (s.parent_session_id !== null) add(id, Number(s.parent_session_id));
  }
  for (const u of await h.store.kysely.selectFrom('session_uncles').select(['session_id', 'uncle_session_id']).execute())
    add(Number(u.session_id), Number(u.uncle_session_id));
  // iterative DFS with colors
  const color = new Map<number, 1 | 2>();
  for (const start of seniors.keys()) {
    if (color.has(start)) continue;
    const stack: { id: number; i: number }[] = [{ id: start, i: 0 }];
    color.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = (seniors.get(top.id) ?? [])[top.i++];
      if (next === undefined) {
        color.set(top.id, 2);
        stack.pop();
      } else if (color.get(next) === 1) return [...stack.map((s) => s.id), next];
      else if (!color.has(next)) {
        color.set(next, 1);
        stack.push({ id: next, i: 0 });
      }
    }
  }
  return null;
}

/** Creates a session through REST (spawn edges only come from create) and returns its id. */
export async function spawn(h: Harness, parent: number | null, body: Record<string, unknown> = {}, token = h.fleetKey): Promise<number> {
  const res = await h.create(token, { ...(parent !== null ? { parent_session_id: parent } : {}), ...body });
  if (parent !== null && res.parent_resolution.resolved_id !== parent)
    throw new Error(`parent ${parent} not resolved: ${JSON.stringify(res.parent_resolution)}`);
  return res.session.id as number;
}

/**
 * Writes an uncle edge row directly (the writer, recordUncleEdge, is another issue's; tests
 * of the walk only need the row, including rows writers would refuse, like cycles).
 */
export async function insertUncle(h: Harness, senior: number, junior: number, basis: 'authenticated' | 'declared' = 'authenticated'): Promise<void> {
  await h.store.kysely.transaction().execute(async (tx) => {
    await tx
      .insertInto('session_uncles')
      .values({
        session_id: junior,
        uncle_session_id: senior,
        source: 'rest.follow_up',
        basis,
        recorded_by_actor_id: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    // as every graph writer does: a cached walk that read either end is no longer current
    await bumpLineageVersions(tx, h.store, [senior, junior]);
  });
}

/** Strips the SQL the legacy-key extraction contributes, so what remains shows which columns a query reads. */
export function withoutLegacyKeyExtraction(sqlText: string): string {
  return sqlText
    .replace(/cast\(json_extract\([^)]*\) as text\)/g, '<legacy-key>')
    .replace(/\(\([a-z_."]*custom_metadata::jsonb ->> '[a-z_]+'\)\)/g, '<legacy-key>');
}

/**
 * Writes an uncle edge the way graph writers do: the row and a `lineage_changed` live event
 * in one transaction (the event wakes the live refresh after commit).
 */
export async function writeUncleEdge(h: Harness, senior: number, junior: number, basis: 'authenticated' | 'declared' = 'authenticated'): Promise<void> {
  await inWriteTx(
    h.ctx,
    async (w) => {
      await insertUncleEdge(w.tx, { sessionId: junior, uncleSessionId: senior, source: 'rest.follow_up', basis, recordedByActorId: null, createdAt: w.now });
      announceLineageChange(w, { kind: 'uncle_linked', sessionIds: [junior, senior] });
    },
    { graph: true },
  );
}

/** Removes an uncle edge the way graph writers do (row deleted, `lineage_changed` emitted). */
export async function removeUncleEdgeRow(h: Harness, senior: number, junior: number): Promise<void> {
  await inWriteTx(
    h.ctx,
    async (w) => {
      await deleteUncleEdge(w.tx, junior, senior);
      announceLineageChange(w, { kind: 'uncle_removed', sessionIds: [junior, senior] });
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
        const { dataLines, ...parsed } = parseSseBlock(block);
        if (dataLines > 0) events.push(parsed);
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}
