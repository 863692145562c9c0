import { findSessionsByIds, type SessionRecord } from '../../store/sessions-repo.js';
import { allSessionIds, humanMessageRowsOf, sessionsChangedSince, uncleRowsOf } from '../../store/otel-export-repo.js';
import { getSetting, setSetting } from '../../store/settings-repo.js';
import { keyedDigest } from '../audit.js';
import type { AppContext } from '../context.js';
import { lineageParents } from '../views.js';
import { ENDED_STATUSES } from '../../core/lifecycle.js';

/**
 * What the OpenTelemetry export (integrations/otel-export.ts, docs/integrations.md) reads: the
 * sessions, each one's spawn parent up to its origin, their uncle edges, and their human
 * messages as keyed digests only — the words never leave the app layer.
 */

export type { SessionRecord as OtelSession };

interface OtelUncle {
  sessionId: number;
  uncleSessionId: number;
  basis: string;
  source: string;
}

interface OtelHumanMessage {
  sessionId: number;
  id: number;
  entryPoint: string;
  channel: string;
  authorKey: string;
  witnessIsolation: string | null;
  /** the record's keyed digest, as in the audit log */
  contentHmac: string;
  createdAt: string;
}

interface OtelSource {
  /** the sessions asked for, by id */
  sessions: SessionRecord[];
  /** those sessions and every spawn ancestor of theirs */
  byId: Map<number, SessionRecord>;
  parentOf: Map<number, number | null>;
  uncles: OtelUncle[];
  messages: OtelHumanMessage[];
}

/** Loads everything needed for a set of sessions (or all), in batches, from the store. */
async function loadSessions(ctx: AppContext, ids: number[] | null): Promise<SessionRecord[]> {
  const db = ctx.store.kysely;
  if (ids) return findSessionsByIds(db, ctx.store, ids);
  const all = await allSessionIds(db);
  const out: SessionRecord[] = [];
  for (let i = 0; i < all.length; i += 500) out.push(...(await findSessionsByIds(db, ctx.store, all.slice(i, i + 500))));
  return out;
}

export async function otelSource(ctx: AppContext, sessionIds: number[] | null): Promise<OtelSource> {
  const db = ctx.store.kysely;
  const sessions = (await loadSessions(ctx, sessionIds)).sort((a, b) => a.id - b.id);
  const byId = new Map(sessions.map((s) => [s.id, s]));
  // the origin of each session: the highest spawn ancestor (uncle edges ignored, docs/concepts.md)
  const parentOf = new Map<number, number | null>();
  let frontier = sessions;
  while (frontier.length > 0) {
    const parents = await lineageParents(db, ctx, frontier);
    const missing: number[] = [];
    for (const [id, p] of parents) {
      parentOf.set(id, p);
      if (p !== null && !byId.has(p) && !parentOf.has(p)) missing.push(p);
    }
    frontier = missing.length > 0 ? await findSessionsByIds(db, ctx.store, missing) : [];
    for (const s of frontier) byId.set(s.id, s);
  }
  const ids = sessions.map((s) => s.id);
  const uncles = (await uncleRowsOf(db, ids)).map((u) => ({
    sessionId: Number(u.session_id),
    uncleSessionId: Number(u.uncle_session_id),
    basis: u.basis,
    source: u.source,
  }));
  const messages = (await humanMessageRowsOf(db, ids)).map((m) => ({
    sessionId: Number(m.session_id),
    id: Number(m.id),
    entryPoint: m.entry_point,
    channel: m.channel,
    authorKey: m.author_key,
    witnessIsolation: m.witness_isolation,
    contentHmac: keyedDigest(Buffer.from(m.digest_key, 'hex'), m.content),
    createdAt: m.created_at,
  }));
  return { sessions, byId, parentOf, uncles, messages };
}

const SETTING_OTEL_WATERMARK = 'otel_exported_through';

/**
 * How far the continuous exporter got: the last `updated_at` it exported and the sessions it
 * already sent at exactly that instant. A bare time (the older form) means every session up to
 * and including it was sent. Keeping the ids matters: a session that ends in the same
 * millisecond as the last exported one, but after the tick read the table, would otherwise
 * never be exported (`updated_at > watermark` skips it).
 */
interface OtelWatermark {
  at: string;
  /** null: everything at `at` was exported (the older, time-only form) */
  ids: number[] | null;
}

function parseWatermark(raw: string | null): OtelWatermark {
  if (!raw) return { at: '', ids: [] };
  if (!raw.startsWith('{')) return { at: raw, ids: null };
  const v = JSON.parse(raw) as { at?: unknown; ids?: unknown };
  return { at: String(v.at ?? ''), ids: Array.isArray(v.ids) ? v.ids.map(Number) : [] };
}

/**
 * The next batch the continuous exporter sends: sessions that reached a terminal state past the
 * stored watermark. `markExported` advances the watermark once they were sent.
 */
export async function nextOtelBatch(ctx: AppContext): Promise<{ sessionIds: number[]; markExported: () => Promise<void> } | null> {
  const db = ctx.store.kysely;
  const mark = parseWatermark(await getSetting(db, SETTING_OTEL_WATERMARK));
  const seen = mark.ids;
  const rows = await sessionsChangedSince(db, [...ENDED_STATUSES], mark.at, seen, 2000);
  if (rows.length === 0) return null;
  const last = rows[rows.length - 1]!.updated_at;
  const atLast = rows.filter((r) => r.updated_at === last).map((r) => Number(r.id));
  const next: OtelWatermark = { at: last, ids: last === mark.at && seen !== null ? [...seen, ...atLast] : atLast };
  return {
    sessionIds: rows.map((r) => Number(r.id)),
    markExported: () => setSetting(db, SETTING_OTEL_WATERMARK, JSON.stringify(next), ctx.clock.now().toISOString()),
  };
}
