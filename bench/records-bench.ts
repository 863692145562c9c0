/**
 * The records row of the benchmark (issue 13: `warrant audit verify --records` fast enough for a
 * daily job, ≥ 100,000 records/s on SQLite), on a throwaway store of its own.
 *
 * The store is filled with real evidence: session events with their own digest keys, each with
 * the log entry the app would have written (keyed details digest, attribution), chained for
 * real. Then `verifyStoredRecords` checks every record against its entry (median of three
 * runs), each beside a plain read of the same log and rows without checking them, so the ratio
 * says what checking costs over reading.
 *
 * `npx tsx bench/records-bench.ts [--records N] [--dialect sqlite|postgres]` prints the rows.
 */
import { randomBytes } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { SessionEventsTable } from '../src/store/database.js';
import { canonicalJson, keyedDigest, nodeChainHasher } from '../src/app/audit.js';
import { verifyStoredRecords } from '../src/app/audit-records.js';
import { systemCaller } from '../src/app/caller.js';
import type { AppContext } from '../src/app/context.js';
import { authenticate } from '../src/app/credentials.js';
import { issueFleetKey } from '../src/app/roster.js';
import { createSession } from '../src/app/sessions/create-session.js';
import { AUDIT_SCHEMA_VERSION, GENESIS_PREV_HASH } from '../src/core/audit-chain.js';
import { auditEntriesPage, auditHead, insertAuditRows, type AuditRow } from '../src/store/audit-repo.js';
import { evidencePage } from '../src/store/record-scan-repo.js';
import { ProgressBar } from '../src/cli/progress.js';
import { dialectsFromArgs, flag, onFreshStore, printRows, runIfEntryPoint, type FigureRow } from './standalone.js';

export interface RecordsBenchOptions {
  dialect: string;
  /** evidence records (session events with entries) the store holds before timing */
  records?: number;
  progress?: (label: string, done: number, total: number) => void;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, digits = 2) => Number(x.toFixed(digits));

/** Writes `target` events over 100 real sessions, each with its log entry, in the app's shapes. */
async function fillRecords(ctx: AppContext, target: number, progress?: RecordsBenchOptions['progress']): Promise<void> {
  const { token, credentialId } = await issueFleetKey(ctx, systemCaller('cli'), 'records bench');
  const caller = await authenticate(ctx, token, 'rest', 'rest');
  const sessions: number[] = [];
  for (let i = 0; i < 100; i++) sessions.push((await createSession(ctx, caller, { title: `records bench ${i}` })).session.id);
  const db = ctx.store.kysely;
  const actorId = Number((await db.selectFrom('actors').select('id').where('kind', '=', 'fleet').executeTakeFirstOrThrow()).id);
  const nextSeq = new Map<number, number>(sessions.map((id) => [id, 1_000]));
  const at = ctx.clock.now().toISOString();
  for (let done = 0; done < target;) {
    const head = await auditHead(db);
    let seq = head?.seq ?? 0;
    let prev = head?.hash ?? GENESIS_PREV_HASH;
    const events: Insertable<SessionEventsTable>[] = [];
    const rows: AuditRow[] = [];
    for (let i = 0; i < 1_000 && done < target; i++, done++) {
      const sessionId = sessions[done % sessions.length]!;
      const eventSeq = nextSeq.get(sessionId)! + 1;
      nextSeq.set(sessionId, eventSeq);
      // stored as the app stores evidence details: the canonical text its digest is of (WriteScope.events)
      const details = canonicalJson({ field: 'title', old: `title ${eventSeq - 1}`, new: `title ${eventSeq}` });
      const key = randomBytes(32).toString('hex');
      events.push({
        session_id: sessionId,
        seq: eventSeq,
        type: 'title_changed',
        details,
        actor_id: actorId,
        actor_basis: 'authenticated',
        caused_by_actor_id: null,
        cause_basis: null,
        credential_id: credentialId,
        created_at: at,
        digest_key: key,
      });
      seq++;
      const entry = canonicalJson({
        kind: 'session_event',
        at,
        schema_version: AUDIT_SCHEMA_VERSION,
        seq,
        session_id: sessionId,
        event_seq: eventSeq,
        type: 'title_changed',
        details_digest: keyedDigest(key, details),
        actor_id: actorId,
        actor_basis: 'authenticated',
        caused_by_actor_id: null,
        cause_basis: null,
        credential_id: credentialId,
      });
      const hash = nodeChainHasher(prev, entry);
      rows.push({ seq, entry, prevHash: prev, hash });
      prev = hash;
    }
    await db.transaction().execute(async (tx) => {
      await tx.insertInto('session_events').values(events).execute();
      await insertAuditRows(tx, rows);
    });
    progress?.('filling records', done, target);
  }
}

/** Reading the log and the events as the check does, without checking anything: the floor the check stands on. */
async function plainRead(ctx: AppContext): Promise<number> {
  const db = ctx.store.kysely;
  let n = 0;
  for (let after = 0; ;) {
    const page = await auditEntriesPage(db, after, 10_000);
    if (page.length === 0) break;
    for (const link of page) JSON.parse(link.entry);
    after = page[page.length - 1]!.seq;
  }
  for (let after = 0; ;) {
    const rows = await evidencePage(db, 'session_events', after, 10_000);
    if (rows.length === 0) break;
    n += rows.length;
    after = rows[rows.length - 1]!.id as number;
  }
  return n;
}

export async function runRecordsBench(ctx: AppContext, options: RecordsBenchOptions): Promise<FigureRow[]> {
  await fillRecords(ctx, options.records ?? 200_000, options.progress);
  const rates: number[] = [];
  const readRates: number[] = [];
  let checked = 0;
  for (let run = 0; run < 3; run++) {
    let t0 = performance.now();
    const read = await plainRead(ctx);
    readRates.push(read / ((performance.now() - t0) / 1000));
    t0 = performance.now();
    const report = await verifyStoredRecords(ctx.store, { onProgress: (phase, d, t) => options.progress?.(`${phase} (run ${run + 1} of 3)`, d, t) });
    const seconds = (performance.now() - t0) / 1000;
    if (!report.ok) throw new Error(`the benchmark store's records do not verify: ${JSON.stringify(report.findings.slice(0, 3))}`);
    checked = report.verified;
    rates.push(checked / seconds);
  }
  const rate = median(rates);
  const readRate = median(readRates);
  return [
    {
      workload: 'audit records: verify --records throughput (records checked against their entries)',
      dialect: options.dialect,
      figures: {
        records: checked,
        records_per_s: Math.round(rate),
        plain_read_records_per_s: Math.round(readRate),
        verify_vs_plain_read: round(rate / readRate),
      },
      target: options.dialect === 'sqlite' ? '≥ 100,000 records/s' : 'informational',
      pass: options.dialect === 'sqlite' ? rate >= 100_000 : null,
    },
  ];
}

async function main(): Promise<void> {
  const records = flag('--records', 200_000);
  const rows: FigureRow[] = [];
  for (const dialect of dialectsFromArgs()) {
    let bar: ProgressBar | null = null;
    let phase = '';
    let last = { done: 0, total: 0 };
    const progress = (label: string, done: number, total: number) => {
      if (label !== phase) {
        bar?.finish(last.done, last.total);
        bar = new ProgressBar(`${dialect}: ${label}`);
        phase = label;
      }
      last = { done, total };
      bar!.update(done, total);
    };
    rows.push(...(await onFreshStore(dialect, (ctx) => runRecordsBench(ctx, { dialect, records, progress }))));
    (bar as ProgressBar | null)?.finish(last.done, last.total);
  }
  printRows(rows);
}

runIfEntryPoint(import.meta.url, 'records', main);
