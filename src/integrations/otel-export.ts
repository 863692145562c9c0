import { createHash } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace, type Attributes, type Link } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type IdGenerator, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ExportResultCode } from '@opentelemetry/core';
import { keyedDigest } from '../app/audit.js';
import type { AppContext } from '../app/context.js';
import { lineageParents } from '../app/views.js';
import type { SessionRecord } from '../store/sessions-repo.js';
import { findSessionsByIds } from '../store/sessions-repo.js';

/**
 * OpenTelemetry export (docs/integrations.md) with the official SDK and OTLP/HTTP exporter: one trace per
 * origin root, a span per session, the spawn edge as the parent span, an uncle edge as a span
 * link (`warrant.edge = "uncle"` + basis), human messages as span events carrying a keyed
 * digest only. Ids are derived from session uids, so sessions exported at different times
 * (the continuous exporter) still join up.
 */
export function traceIdFor(originUid: string): string {
  return originUid.replace(/-/g, '');
}
export function spanIdFor(uid: string): string {
  return createHash('sha256').update(`warrant-span:${uid}`).digest('hex').slice(0, 16);
}

/** Hands the SDK the deterministic ids of the span being started (startSpan is synchronous). */
class DerivedIds implements IdGenerator {
  next = { traceId: '', spanId: '' };
  generateTraceId(): string {
    return this.next.traceId;
  }
  generateSpanId(): string {
    return this.next.spanId;
  }
}

function describe(error: unknown): string {
  if (!error) return 'export failed';
  const e = error as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  return e.message || e.code || e.cause?.code || e.cause?.message || String(error) || 'export failed';
}

const TERMINAL = new Set(['stopped', 'failed', 'archived']);

export interface OtelExportResult {
  spans: number;
  links: number;
  events: number;
}

/** Loads everything needed for a set of sessions (or all), in batches, from the store. */
async function loadSessions(ctx: AppContext, ids: number[] | null): Promise<SessionRecord[]> {
  const db = ctx.store.kysely;
  if (ids) return findSessionsByIds(db, ctx.store, ids);
  const rows = await db.selectFrom('sessions').select('id').orderBy('id').execute();
  const out: SessionRecord[] = [];
  for (let i = 0; i < rows.length; i += 500) out.push(...(await findSessionsByIds(db, ctx.store, rows.slice(i, i + 500).map((r) => Number(r.id)))));
  return out;
}

export async function exportToOtlp(ctx: AppContext, options: { endpoint: string; sessionIds?: number[]; headers?: Record<string, string> }): Promise<OtelExportResult> {
  const db = ctx.store.kysely;
  const sessions = (await loadSessions(ctx, options.sessionIds ?? null)).sort((a, b) => a.id - b.id);
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
  const originOf = (id: number): SessionRecord => {
    let current = byId.get(id)!;
    for (let guard = 0; guard < 10_000; guard++) {
      const p = parentOf.get(current.id) ?? null;
      if (p === null || !byId.has(p)) return current;
      current = byId.get(p)!;
    }
    return current;
  };
  const ids = sessions.map((s) => s.id);
  const uncles = ids.length === 0 ? [] : await db.selectFrom('session_uncles').selectAll().where('session_id', 'in', ids).execute();
  const messages =
    ids.length === 0
      ? []
      : await db.selectFrom('human_messages').select(['session_id', 'id', 'entry_point', 'channel', 'author_key', 'content', 'digest_key', 'created_at', 'witness_isolation']).where('session_id', 'in', ids).orderBy('id').execute();

  const idGenerator = new DerivedIds();
  const otlp = new OTLPTraceExporter({ url: options.endpoint.replace(/\/+$/, '') + '/v1/traces', ...(options.headers ? { headers: options.headers } : {}) });
  // the SDK reports export failures only to its diagnostics; keep them to fail loudly
  const failures: string[] = [];
  const exporter: SpanExporter = {
    export: (spans, done) =>
      otlp.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) failures.push(describe(result.error));
        done(result);
      }),
    shutdown: () => otlp.shutdown(),
    forceFlush: () => otlp.forceFlush(),
  };
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'warrant' }),
    idGenerator,
    spanProcessors: [new BatchSpanProcessor(exporter, { maxExportBatchSize: 512, scheduledDelayMillis: 100 })],
    spanLimits: { linkCountLimit: 1000, eventCountLimit: 10_000 },
  });
  const tracer = provider.getTracer('warrant', '0.1.0');
  const now = ctx.clock.now();
  let linkCount = 0;
  let eventCount = 0;
  for (const s of sessions) {
    const origin = originOf(s.id);
    const traceId = traceIdFor(origin.uid);
    const parentId = parentOf.get(s.id) ?? null;
    const parent = parentId !== null ? byId.get(parentId) : undefined;
    const context = parent ? trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: spanIdFor(parent.uid), traceFlags: TraceFlags.SAMPLED, isRemote: true }) : ROOT_CONTEXT;
    const links: Link[] = uncles
      .filter((u) => Number(u.session_id) === s.id)
      .map((u) => {
        const uncle = byId.get(Number(u.uncle_session_id));
        const uncleUid = uncle?.uid;
        linkCount++;
        return {
          context: { traceId: uncle ? traceIdFor(originOf(uncle.id).uid) : traceId, spanId: uncleUid ? spanIdFor(uncleUid) : '0000000000000000', traceFlags: TraceFlags.SAMPLED },
          attributes: { 'warrant.edge': 'uncle', 'warrant.edge.basis': u.basis, 'warrant.edge.source': u.source, 'warrant.uncle.session_id': Number(u.uncle_session_id) },
        };
      });
    const attributes: Attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'warrant.session.id': s.id,
      'warrant.session.uid': s.uid,
      'warrant.session.status': s.status,
      'warrant.genesis': s.genesis,
      'warrant.scheduling_class': s.schedulingClass,
      'warrant.activation': s.activation,
      ...(s.agentRoot ? { 'gen_ai.agent.name': s.agentRoot } : {}),
      ...(s.providerConversation ? { 'gen_ai.conversation.id': s.providerConversation } : {}),
      ...(s.provider ? { 'gen_ai.system': s.provider } : {}),
      ...(s.model ? { 'gen_ai.request.model': s.model } : {}),
      ...(parentId !== null ? { 'warrant.parent.session_id': parentId, 'warrant.parent.basis': s.parentBasis ?? 'none' } : {}),
      ...(s.creatorBasis ? { 'warrant.creator.basis': s.creatorBasis } : {}),
      ...(s.causeBasis ? { 'warrant.cause.basis': s.causeBasis } : {}),
      ...(TERMINAL.has(s.status) ? {} : { 'warrant.session.open': true }),
    };
    idGenerator.next = { traceId, spanId: spanIdFor(s.uid) };
    const span = tracer.startSpan(s.title ?? `session #${s.id}`, { kind: SpanKind.INTERNAL, startTime: new Date(s.createdAt), attributes, links }, context);
    for (const m of messages.filter((x) => Number(x.session_id) === s.id)) {
      eventCount++;
      span.addEvent(
        'warrant.human_message',
        {
          'warrant.human_message.id': Number(m.id),
          'warrant.entry_point': m.entry_point,
          'warrant.channel': m.channel,
          'warrant.author.key': m.author_key,
          // a witnessed terminal prompt: same-uid or other-uid (docs/design/terminal-channel.md)
          ...(m.witness_isolation ? { 'warrant.witness_isolation': m.witness_isolation } : {}),
          // never the words: the record's keyed digest, as in the audit log
          'warrant.content.hmac_sha256': keyedDigest(Buffer.from(m.digest_key, 'hex'), m.content),
        },
        new Date(m.created_at),
      );
    }
    span.end(TERMINAL.has(s.status) ? new Date(s.updatedAt) : now);
  }
  try {
    await provider.forceFlush();
    await provider.shutdown();
  } catch (error) {
    failures.push(describe(error));
  }
  if (failures.length > 0) throw new Error(`OTLP export to ${options.endpoint} failed: ${failures[0]}`);
  return { spans: sessions.length, links: linkCount, events: eventCount };
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
 * `warrant serve --otel-endpoint`: exports each session's span once it reaches a terminal
 * state, off the request path. A session that ends again later is exported again.
 */
export function startContinuousOtelExport(ctx: AppContext, endpoint: string, intervalMs = 15_000): () => Promise<void> {
  let running = false;
  const tick = async () => {
    const { getSetting, setSetting } = await import('../store/settings-repo.js');
    const db = ctx.store.kysely;
    const mark = parseWatermark(await getSetting(db, SETTING_OTEL_WATERMARK));
    const seen = mark.ids;
    const rows = await db
      .selectFrom('sessions')
      .select(['id', 'updated_at'])
      .where('status', 'in', [...TERMINAL])
      .where((eb) =>
        seen === null
          ? eb('updated_at', '>', mark.at)
          : seen.length === 0
            ? eb('updated_at', '>=', mark.at)
            : eb.or([eb('updated_at', '>', mark.at), eb.and([eb('updated_at', '=', mark.at), eb('id', 'not in', seen)])]),
      )
      .orderBy('updated_at')
      .orderBy('id')
      .limit(2000)
      .execute();
    if (rows.length === 0) return;
    await exportToOtlp(ctx, { endpoint, sessionIds: rows.map((r) => Number(r.id)) });
    const last = rows[rows.length - 1]!.updated_at;
    const atLast = rows.filter((r) => r.updated_at === last).map((r) => Number(r.id));
    const next: OtelWatermark = { at: last, ids: last === mark.at && seen !== null ? [...seen, ...atLast] : atLast };
    await setSetting(db, SETTING_OTEL_WATERMARK, JSON.stringify(next), ctx.clock.now().toISOString());
  };
  let pass: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pass = tick()
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'OpenTelemetry export failed; will retry'))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  // stopping waits for an export in progress, so the store can be closed after it
  return async () => {
    clearInterval(timer);
    await pass;
  };
}
