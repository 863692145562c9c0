import { createHash } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace, type Attributes, type Link } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type IdGenerator, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ExportResultCode } from '@opentelemetry/core';
import { nextOtelBatch, otelSource, type OtelSession as SessionRecord } from '../app/exports/index.js';
import { ENDED_STATUSES as TERMINAL } from '../core/lifecycle.js';
import type { AppContext } from '../app/kernel.js';

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

interface OtelExportResult {
  spans: number;
  links: number;
  events: number;
}

export async function exportToOtlp(
  ctx: AppContext,
  options: { endpoint: string; sessionIds?: number[]; headers?: Record<string, string> },
): Promise<OtelExportResult> {
  const { sessions, byId, parentOf, uncles, messages } = await otelSource(ctx, options.sessionIds ?? null);
  const originOf = (id: number): SessionRecord => {
    let current = byId.get(id)!;
    for (let guard = 0; guard < 10_000; guard++) {
      const p = parentOf.get(current.id) ?? null;
      if (p === null || !byId.has(p)) return current;
      current = byId.get(p)!;
    }
    return current;
  };

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
    const context = parent
      ? trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: spanIdFor(parent.uid), traceFlags: TraceFlags.SAMPLED, isRemote: true })
      : ROOT_CONTEXT;
    const links: Link[] = uncles
      .filter((u) => u.sessionId === s.id)
      .map((u) => {
        const uncle = byId.get(u.uncleSessionId);
        const uncleUid = uncle?.uid;
        linkCount++;
        return {
          context: {
            traceId: uncle ? traceIdFor(originOf(uncle.id).uid) : traceId,
            spanId: uncleUid ? spanIdFor(uncleUid) : '0000000000000000',
            traceFlags: TraceFlags.SAMPLED,
          },
          attributes: { 'warrant.edge': 'uncle', 'warrant.edge.basis': u.basis, 'warrant.edge.source': u.source, 'warrant.uncle.session_id': u.uncleSessionId },
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
    for (const m of messages.filter((x) => x.sessionId === s.id)) {
      eventCount++;
      span.addEvent(
        'warrant.human_message',
        {
          'warrant.human_message.id': m.id,
          'warrant.entry_point': m.entryPoint,
          'warrant.channel': m.channel,
          'warrant.author.key': m.authorKey,
          // a witnessed terminal prompt: same-uid or other-uid (docs/design/terminal-channel.md)
          ...(m.witnessIsolation ? { 'warrant.witness_isolation': m.witnessIsolation } : {}),
          // never the words: the record's keyed digest, as in the audit log
          'warrant.content.hmac_sha256': m.contentHmac,
        },
        new Date(m.createdAt),
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

/**
 * `warrant serve --otel-endpoint`: exports each session's span once it reaches a terminal
 * state, off the request path. A session that ends again later is exported again.
 */
export function startContinuousOtelExport(ctx: AppContext, endpoint: string, intervalMs = 15_000): () => Promise<void> {
  let running = false;
  const tick = async () => {
    const batch = await nextOtelBatch(ctx);
    if (!batch) return;
    await exportToOtlp(ctx, { endpoint, sessionIds: batch.sessionIds });
    await batch.markExported();
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
