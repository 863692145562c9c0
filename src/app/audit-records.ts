import { auditEntriesPage, auditHead } from '../store/audit-repo.js';
import type { Executor, StoreDialect } from '../store/dialect/dialect.js';
import { evidenceKeyOf, evidencePage, unclePage, type ScannedRow, type ScannedTable } from '../store/record-scan-repo.js';
import { RECORD_RULES, RULE_BY_KIND, UNCLE_EVENT_TYPES, UNCLE_FIELDS, uncleKey, uncleValues, type FieldValues, type RecordRule } from './audit-record-rules.js';

/**
 * `warrant audit verify --records` (docs/audit-log.md): every evidence record still present is
 * recomputed — its keyed digests under its own key, its other values verbatim — and compared
 * with the log entry that recorded it; every entry whose record should still exist must find
 * it, and every record must have its entry. The log is read once (seq order) into compact
 * expectations, then each table is streamed in key order and compared in memory.
 */

type RecordProblem = 'differs' | 'missing' | 'unlogged';

interface RecordFinding {
  table: ScannedTable;
  /** the record's key: its row id (session_events: `session/event seq`, session_uncles: `junior>uncle`) */
  id: string;
  /** how people name it */
  record: string;
  /** the log entry that records it; null for an unlogged record */
  seq: number | null;
  problem: RecordProblem;
  /** differs: the values that do not match the entry */
  fields?: string[];
}

interface TableCounts {
  /** records whose every value matched their entry */
  verified: number;
  /** records or entries that cannot be checked: entries older than the field that names or digests the record, rows older than the log */
  not_covered: number;
  /** entries whose record went with its session's deletion (recorded by a later session_deletion entry) */
  gone_with_session: number;
  findings: number;
}

export interface RecordsReport {
  ok: boolean;
  verified: number;
  not_covered: number;
  findings_total: number;
  /** the first `limit` findings, in log order (unlogged records last) */
  findings: RecordFinding[];
  tables: Record<ScannedTable, TableCounts>;
}

interface Expectation {
  seq: number;
  values: FieldValues;
  sessions: number[] | undefined;
}

/** An uncle edge as its junior's newest edge event says it is. */
interface UncleExpectation {
  present: boolean;
  values: FieldValues;
  seq: number | null;
}

interface RecordsOptions {
  pageSize?: number;
  /** findings kept in the report (all are counted) */
  limit?: number;
  onProgress?: (phase: string, done: number, total: number) => void;
}

const TABLES: ScannedTable[] = [...RECORD_RULES.map((r) => r.table), 'session_uncles'];

class Findings {
  readonly list: RecordFinding[] = [];
  total = 0;
  constructor(
    private readonly limit: number,
    private readonly counts: Record<ScannedTable, TableCounts>,
  ) {}
  add(f: RecordFinding): void {
    this.total++;
    this.counts[f.table].findings++;
    if (this.list.length < this.limit * 4) this.list.push(f);
  }
}

/** One value as the log and the row both hold it: a number, a string or null (a missing value is null). */
function sameValue(a: unknown, b: unknown): boolean {
  const x = a ?? null;
  const y = b ?? null;
  return x === y || (Number.isNaN(x) && Number.isNaN(y));
}

function sameValues(expected: FieldValues, actual: FieldValues): boolean {
  if (expected.length !== actual.length) return false;
  for (let i = 0; i < expected.length; i++) if (!sameValue(expected[i], actual[i])) return false;
  return true;
}

function differingFields(names: readonly string[], expected: FieldValues, actual: FieldValues): string[] {
  return names.filter((_, i) => !sameValue(expected[i], actual[i]));
}

/**
 * Checks every evidence record against the log, all on one snapshot (read-only: it takes no write
 * lock; on SQLite its process queues its own writes behind the check, which holds the one connection).
 */
export function verifyStoredRecords(store: StoreDialect, options: RecordsOptions = {}): Promise<RecordsReport> {
  return store.readSnapshot((db) => checkRecords(db, options));
}

async function checkRecords(db: Executor, options: RecordsOptions): Promise<RecordsReport> {
  const pageSize = options.pageSize ?? 10_000;
  const limit = options.limit ?? 100;
  const counts = Object.fromEntries(TABLES.map((t) => [t, { verified: 0, not_covered: 0, gone_with_session: 0, findings: 0 }])) as Record<
    ScannedTable,
    TableCounts
  >;
  const findings = new Findings(limit, counts);

  // 1. the log: one expectation per entry that records a row
  const expected = new Map<RecordRule, Map<string, Expectation>>(RECORD_RULES.map((r) => [r, new Map()]));
  const deletedAt = new Map<number, number>(); // session id → seq of its session_deletion entry
  const revoked = new Map<string, { seq: number; at: unknown }>(); // credential id → its token_revoked entry
  let firstAt: string | null = null;
  const total = (await auditHead(db))?.seq ?? 0;
  let after = 0;
  for (;;) {
    const page = await auditEntriesPage(db, after, pageSize);
    if (page.length === 0) break;
    for (const link of page) {
      const e = JSON.parse(link.entry) as Record<string, unknown>;
      firstAt ??= typeof e.at === 'string' ? e.at : null;
      if (e.kind === 'session_deletion' && e.session_id != null) deletedAt.set(Number(e.session_id), link.seq);
      if (e.kind === 'token_revoked' && e.credential_id != null) revoked.set(String(e.credential_id), { seq: link.seq, at: e.at });
      const rule = RULE_BY_KIND.get(String(e.kind));
      if (!rule) continue;
      const key = rule.entryKey(e);
      if (key === null || (rule.entryComplete && !rule.entryComplete(e))) {
        counts[rule.table].not_covered++;
        continue;
      }
      expected.get(rule)!.set(key, { seq: link.seq, values: rule.fromEntry(e), sessions: rule.sessionsOf?.(e) });
    }
    after = page[page.length - 1]!.seq;
    options.onProgress?.('reading the log', after, total);
  }
  const predatesLog = (time: string) => firstAt === null || time < firstAt;
  const goneWithSession = (x: Expectation) => (x.sessions ?? []).some((id) => (deletedAt.get(id) ?? 0) > x.seq);

  // 2. each table, streamed in key order
  const edges = new Map<string, UncleExpectation>();
  for (const rule of RECORD_RULES) {
    const want = expected.get(rule)!;
    const c = counts[rule.table];
    let key = 0;
    let done = 0;
    // rows come in insertion order: once one the log records has been seen, no later row predates the log
    let logged = false;
    for (;;) {
      const rows = await evidencePage(db, rule.table, key, pageSize);
      if (rows.length === 0) break;
      for (const row of rows) {
        const id = rule.rowKey(row);
        if (id === null) continue;
        const x = want.get(id);
        if (rule.table === 'session_events') noteUncleEvent(row, x?.seq ?? null, edges);
        if (!x) {
          if (rule.unlogged === 'not-covered' || (!logged && predatesLog(rule.rowTime(row)))) c.not_covered++;
          else findings.add({ table: rule.table, id, record: rule.label(id), seq: null, problem: 'unlogged' });
          continue;
        }
        want.delete(id);
        logged = true;
        // a logged revocation is written once: the row must still carry its time
        const revocation = rule.table === 'tokens' ? revoked.get(id) : undefined;
        if (revocation && row.revoked_at !== revocation.at) {
          findings.add({ table: rule.table, id, record: rule.label(id), seq: revocation.seq, problem: 'differs', fields: ['revoked_at'] });
        }
        // the stored text digested as it is, first; re-encoded only when that does not match
        const asStored = rule.fromRowAsStored?.(row);
        if (asStored && sameValues(x.values, asStored)) {
          c.verified++;
          continue;
        }
        const values = rule.fromRow(row);
        if (sameValues(x.values, values)) c.verified++;
        else
          findings.add({
            table: rule.table,
            id,
            record: rule.label(id),
            seq: x.seq,
            problem: 'differs',
            fields: differingFields(rule.fields, x.values, values),
          });
      }
      key = evidenceKeyOf(rule.table, rows[rows.length - 1]!);
      done += rows.length;
      options.onProgress?.(`checking ${rule.table}`, done, 0);
    }
    for (const [id, x] of want) {
      if (goneWithSession(x)) c.gone_with_session++;
      else findings.add({ table: rule.table, id, record: rule.label(id), seq: x.seq, problem: 'missing' });
    }
  }

  // 3. uncle edges, against the junior's newest edge event
  await checkUncles(db, pageSize, edges, deletedAt, predatesLog, counts.session_uncles, findings);

  const sorted = findings.list.sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity)).slice(0, limit);
  const verified = Object.values(counts).reduce((sum, t) => sum + t.verified, 0);
  const notCovered = Object.values(counts).reduce((sum, t) => sum + t.not_covered, 0);
  return { ok: findings.total === 0, verified, not_covered: notCovered, findings_total: findings.total, findings: sorted, tables: counts };
}

/**
 * An edge event on its junior's timeline says what the edge is from then on: linked or
 * inverted (the written edge present, the replaced one gone), removed (gone). Events are read
 * in id order, and the graph lock orders the writes of one pair, so the last word wins.
 */
function noteUncleEvent(row: ScannedRow, seq: number | null, edges: Map<string, UncleExpectation>): void {
  if (!UNCLE_EVENT_TYPES.has(String(row.type))) return;
  let d: Record<string, unknown>;
  try {
    d = JSON.parse(String(row.details)) as Record<string, unknown>;
  } catch {
    return;
  }
  if (d.role !== 'junior') return;
  const key = uncleKey(d.session_id, d.uncle_session_id);
  if (row.type === 'uncle_removed') {
    edges.set(key, { present: false, values: [], seq });
    return;
  }
  const replaced = d.replaced as Record<string, unknown> | null | undefined;
  if (replaced) edges.set(uncleKey(replaced.session_id, replaced.uncle_session_id), { present: false, values: [], seq });
  edges.set(key, { present: true, values: uncleValues(d), seq });
}

async function checkUncles(
  db: Executor,
  pageSize: number,
  edges: Map<string, UncleExpectation>,
  deletedAt: Map<number, number>,
  predatesLog: (time: string) => boolean,
  c: TableCounts,
  findings: Findings,
): Promise<void> {
  const seen = new Set<string>();
  let after = { sessionId: 0, uncleSessionId: 0 };
  for (;;) {
    const rows = await unclePage(db, after, pageSize);
    if (rows.length === 0) break;
    for (const row of rows) {
      const id = uncleKey(row.session_id, row.uncle_session_id);
      seen.add(id);
      const record = `uncle edge #${row.uncle_session_id} → #${row.session_id}`;
      const edge = edges.get(id);
      if (!edge?.present) {
        if (predatesLog(String(row.created_at))) c.not_covered++;
        else findings.add({ table: 'session_uncles', id, record, seq: edge?.seq ?? null, problem: 'unlogged' });
        continue;
      }
      const values = uncleValues(row);
      if (sameValues(edge.values, values)) c.verified++;
      else findings.add({ table: 'session_uncles', id, record, seq: edge.seq, problem: 'differs', fields: differingFields(UNCLE_FIELDS, edge.values, values) });
    }
    const last = rows[rows.length - 1]!;
    after = { sessionId: Number(last.session_id), uncleSessionId: Number(last.uncle_session_id) };
  }
  for (const [id, edge] of edges) {
    if (!edge.present || seen.has(id)) continue;
    const [junior, uncle] = id.split('>').map(Number);
    // a deleted end takes the edge with it (its deletion record lists it)
    if (deletedAt.has(junior!) || deletedAt.has(uncle!)) c.gone_with_session++;
    else findings.add({ table: 'session_uncles', id, record: `uncle edge #${uncle} → #${junior}`, seq: edge.seq, problem: 'missing' });
  }
}
