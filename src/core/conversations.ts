import { hasLoneSurrogate } from './text.js';

/**
 * docs/messages.md: the pure rules. A session's `provider_conversation`
 * is where it runs now; `session_conversations` keeps every binding and every backfilled
 * estimate, append-only. Readers merge the rows per conversation.
 *
 * Sources (docs/messages.md "Provider conversation history"): `runtime-reported` — made with
 * a session token outside MCP (the hooks and the runner; not verified); `declared` — made
 * from an MCP surface, or by a caller that is not a session (a fleet key, an admin);
 * `estimated` — backfilled from a transcript. `observed` is only ever read: rows written
 * before reports were told apart, kept as they were (a session token over REST or MCP, or a
 * fleet or admin caller — the store cannot say which).
 */
export const CONVERSATION_SOURCES = ['runtime-reported', 'declared', 'observed', 'estimated'] as const;
export type ConversationSource = (typeof CONVERSATION_SOURCES)[number];
/** the sources a report writes today (`observed` is legacy, `estimated` the backfill's) */
export type ReportedSource = 'runtime-reported' | 'declared';
type ConversationStatus = 'current' | 'observed' | 'estimated';

/**
 * Who reported decides the source, never the report: a session token outside MCP is its
 * runtime's report; anything said over MCP, and every other credential, is a declaration.
 * @example reportedSourceOf('session', 'rest') // 'runtime-reported'
 * @example reportedSourceOf('session', 'mcp') // 'declared'
 */
export function reportedSourceOf(principalKind: string, surface: string): ReportedSource {
  return principalKind === 'session' && surface !== 'mcp' ? 'runtime-reported' : 'declared';
}

export const MAX_PROVIDER_LENGTH = 64;
export const MAX_CONVERSATION_ID_LENGTH = 500;
export const MAX_TRANSCRIPT_PATH_LENGTH = 4096;

export interface ConversationRow {
  id: number;
  provider: string | null;
  conversationId: string;
  transcriptPath: string | null;
  observedAt: string;
  source: ConversationSource;
  title: string | null;
  ownerUserId: number | null;
  originId: number | null;
}

export interface MergedConversation {
  provider: string | null;
  conversationId: string;
  status: ConversationStatus;
  /** the latest observation's time and path (null for a current conversation with no row yet) */
  observedAt: string | null;
  transcriptPath: string | null;
  firstObservedAt: string | null;
  observations: number;
  sources: ConversationSource[];
  /** the affiliation snapshot of the latest row */
  title: string | null;
  ownerUserId: number | null;
  originId: number | null;
}

/**
 * Merges rows per conversation: latest observation time and path; `current` when it is the
 * session's present conversation, `observed` if any row is a report (any source but
 * `estimated`), `estimated` only when every row is. The current conversation first, then the most recently observed.
 * @example mergeConversations([{conversationId:'a', source:'estimated', …}], null)[0].status // 'estimated'
 */
export function mergeConversations(
  rows: readonly ConversationRow[],
  current: { provider: string | null; conversationId: string } | null,
): MergedConversation[] {
  const groups = new Map<string, ConversationRow[]>();
  for (const r of rows) {
    const key = r.conversationId;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const out: MergedConversation[] = [];
  const latestRowId = new Map<string, number>();
  for (const [conversationId, group] of groups) {
    const sorted = [...group].sort((a, b) => (a.observedAt === b.observedAt ? a.id - b.id : a.observedAt < b.observedAt ? -1 : 1));
    const latest = sorted[sorted.length - 1]!;
    latestRowId.set(conversationId, Math.max(...group.map((r) => r.id)));
    const sources = CONVERSATION_SOURCES.filter((s) => group.some((r) => r.source === s));
    const isCurrent = current !== null && current.conversationId === conversationId;
    out.push({
      provider: latest.provider ?? (isCurrent ? current.provider : null),
      conversationId,
      status: isCurrent ? 'current' : sources.some((x) => x !== 'estimated') ? 'observed' : 'estimated',
      observedAt: latest.observedAt,
      transcriptPath: latest.transcriptPath,
      firstObservedAt: sorted[0]!.observedAt,
      observations: group.length,
      sources,
      title: latest.title,
      ownerUserId: latest.ownerUserId,
      originId: latest.originId,
    });
  }
  if (current !== null && !groups.has(current.conversationId)) {
    // bound before conversation history was kept: current, with nothing observed yet
    out.push({
      provider: current.provider,
      conversationId: current.conversationId,
      status: 'current',
      observedAt: null,
      transcriptPath: null,
      firstObservedAt: null,
      observations: 0,
      sources: [],
      title: null,
      ownerUserId: null,
      originId: null,
    });
  }
  const rank = (m: MergedConversation) => (m.status === 'current' ? 0 : 1);
  // same time: the one recorded last first
  const recency = (m: MergedConversation) => latestRowId.get(m.conversationId) ?? Number.MAX_SAFE_INTEGER;
  return out.sort(
    (a, b) => rank(a) - rank(b) || (a.observedAt === b.observedAt ? recency(b) - recency(a) : (a.observedAt ?? '') > (b.observedAt ?? '') ? -1 : 1),
  );
}

/** What an estimated report finds under the lock (docs/messages.md backfill outcomes the server decides). */
export type EstimateOutcome = 'attributed' | 'already_estimated' | 'skipped_observed';

/**
 * A backfilled estimate never overrides evidence: a conversation the session runs in now or
 * was reported in (any source but `estimated`) is skipped; one already estimated appends
 * nothing (idempotent).
 */
export function decideEstimate(
  rows: readonly Pick<ConversationRow, 'conversationId' | 'source'>[],
  currentConversation: string | null,
  conversationId: string,
): EstimateOutcome {
  if (currentConversation === conversationId) return 'skipped_observed';
  const same = rows.filter((r) => r.conversationId === conversationId);
  if (same.some((r) => r.source !== 'estimated')) return 'skipped_observed';
  if (same.length > 0) return 'already_estimated';
  return 'attributed';
}

/** Text a client reported: bounded, without control characters that no path or id contains. */
export function checkReportedText(
  value: unknown,
  field: string,
  max: number,
  options: { optional?: boolean } = {},
): { ok: true; value: string | null } | { ok: false; reason: string } {
  if (value === undefined || value === null) return options.optional ? { ok: true, value: null } : { ok: false, reason: `${field}: required` };
  if (typeof value !== 'string') return { ok: false, reason: `${field}: must be text` };
  if (value.length === 0 || value.length > max) return { ok: false, reason: `${field}: 1 to ${max} characters` };

  if (/[\u0000-\u001f\u007f]/.test(value)) return { ok: false, reason: `${field}: must not contain control characters` };
  if (hasLoneSurrogate(value)) return { ok: false, reason: `${field}: is not valid UTF-8 text` };
  return { ok: true, value };
}
