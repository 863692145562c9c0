import type { Transaction } from 'kysely';
import type { ActorIdentity } from '../core/actors.js';
import { lineageChangeOf } from '../core/lineage-change.js';
import type { Database } from '../store/database.js';
import { ensureActor } from '../store/actors-repo.js';
import { insertEvents, type EventAttribution, type EventRecord } from '../store/events-repo.js';
import { findSessionsByIds, updateSessionIfVersion, type SessionChanges, type SessionRecord } from '../store/sessions-repo.js';
import { writeLiveEvents } from '../store/live-repo.js';
import { bumpLineageVersions } from '../store/lineage-versions-repo.js';
import { appendAuditEntries, canonicalJson, keyedDigest, newRecordKey, type AuditEntryDraft } from './audit.js';
import type { AppContext } from './context.js';
import { forgetSessionRow } from './access.js';
import { LIVE_CHANNEL } from './live-hub.js';
import { sessionViews, type SessionView } from './views.js';
import { serializeSession } from '../render/session-json.js';

/** Event types that record runtime state: unattributed and not evidence (docs/attribution.md). */
export const RUNTIME_EVENT_TYPES = new Set(['started', 'idle', 'exited', 'error']);

interface LiveDraft {
  type: string;
  /** the session whose visibility gates the event, when one */
  sessionId: number | null;
  ownerUserId: number | null;
  payload: Record<string, unknown>;
}

/** The row changes a walk reads (lineage-rows.ts HIERARCHY_COLUMNS: the rest never change after insert). */
const WALK_READ_CHANGES: readonly (keyof SessionChanges)[] = ['title', 'status', 'parentSessionId', 'parentBasis'];

/**
 * The sessions this transaction's live events say changed in the lineage graph (their
 * walk-cache versions are bumped with it). A `session_updated` of a session whose row changed
 * no column a walk reads (`walkRows` does not hold it: only its timeline grew — an agent
 * message, a delivery) changes no walk, so it bumps nothing: a busy fleet's messages do not
 * invalidate every cached walk of the sessions that send them.
 */
function lineageTouched(drafts: readonly LiveDraft[], walkRows: ReadonlySet<number>): number[] {
  return drafts.flatMap((d) => {
    if (d.type === 'session_updated' && d.sessionId !== null && !walkRows.has(d.sessionId)) return [];
    const { changed, deleted } = lineageChangeOf(d.type, d.payload);
    return [...changed, ...deleted];
  });
}

/**
 * One write transaction of a use case. Events, live events and audit entries are written
 * inside it; the live events and the audit append are the last statement, after the chain lock
 * (docs/attribution.md), so the live counter's row and the chain lock are held from there to the
 * commit and no longer.
 */
export class WriteScope {
  readonly now: string;
  private readonly liveDrafts: LiveDraft[] = [];
  private readonly auditDrafts: AuditEntryDraft[] = [];
  private readonly createdIds = new Set<number>();
  /** sessions inserted in this transaction with their first event's seq already taken */
  private readonly takenSeqs = new Map<number, number>();
  private readonly touchedIds = new Set<number>();
  /** touched sessions whose row may have changed a column a walk reads (lineageTouched) */
  private readonly walkRowIds = new Set<number>();
  private readonly afterCommitHooks: (() => void)[] = [];
  private readonly hotRowUpdates: ((tx: Transaction<Database>) => Promise<void>)[] = [];
  private readonly finalViews = new Map<number, { view: SessionView; ownerUserId: number | null; version: number }>();
  private readonly currentRecords = new Map<number, { record: SessionRecord; version: number }>();
  private changeCount = 0;

  constructor(
    readonly ctx: AppContext,
    readonly tx: Transaction<Database>,
  ) {
    this.now = ctx.clock.now().toISOString();
  }

  actorId(identity: ActorIdentity): Promise<number> {
    return ensureActor(this.tx, this.ctx.actors, identity, this.now);
  }

  /**
   * Writes a session event and mirrors it into the audit log unless it is runtime state. The
   * log entry carries a keyed digest of the details, never the details themselves (they may
   * hold a human's words: a title, a prompt's first line); the key lives on the event row and
   * goes when the event does (docs/attribution.md).
   */
  async event(sessionId: number, type: string, details: Record<string, unknown>, attribution: EventAttribution | null): Promise<EventRecord> {
    return (await this.events([{ sessionId, type, details }], attribution))[0]!;
  }

  /**
   * Several events with one attribution, written in one insert (each still takes its session's
   * seq in the given order, which locks that session's row: callers order by session id).
   */
  async events(
    list: readonly { sessionId: number; type: string; details: Record<string, unknown> }[],
    attribution: EventAttribution | null,
  ): Promise<EventRecord[]> {
    const attr = attribution ?? { actorId: null, actorBasis: null, causeActorId: null, causeBasis: null, credentialId: null };
    const drafts = list.map((e) => {
      const evidence = !RUNTIME_EVENT_TYPES.has(e.type);
      return {
        ...e,
        seq: this.takeSeq(e.sessionId),
        attribution: attr,
        now: this.now,
        digestKey: evidence ? newRecordKey(this.ctx.ids) : null,
        // evidence keeps the very text its digest is of, so `verify --records` finds it canonical as stored
        detailsText: evidence ? canonicalJson(e.details) : undefined,
      };
    });
    const records = await insertEvents(this.tx, drafts);
    for (const [i, record] of records.entries()) {
      const detailsText = drafts[i]!.detailsText;
      if (record.digestKey !== null && detailsText !== undefined) {
        this.audit({
          kind: 'session_event',
          at: this.now,
          session_id: record.sessionId,
          event_seq: record.seq,
          type: record.type,
          details_digest: keyedDigest(record.digestKey, detailsText),
          actor_id: attr.actorId,
          actor_basis: attr.actorBasis,
          caused_by_actor_id: attr.causeActorId,
          cause_basis: attr.causeBasis,
          credential_id: attr.credentialId,
        });
      }
      this.timelineGrew(record.sessionId);
    }
    return records;
  }

  private takeSeq(sessionId: number): number | undefined {
    const seq = this.takenSeqs.get(sessionId);
    this.takenSeqs.delete(sessionId);
    return seq;
  }

  audit(entry: AuditEntryDraft): void {
    this.auditDrafts.push(entry);
  }

  live(draft: LiveDraft): void {
    this.liveDrafts.push(draft);
  }

  /**
   * The session was created in this transaction: one `session_created` at commit.
   * `firstEventSeq`: the seq its row was inserted with, for its first event here.
   */
  created(sessionId: number, firstEventSeq?: number): void {
    forgetSessionRow(this.tx, sessionId);
    if (firstEventSeq !== undefined) this.takenSeqs.set(sessionId, firstEventSeq);
    this.createdIds.add(sessionId);
    this.changeCount++;
  }

  /**
   * The session's state changed: one `session_updated` with its full state at commit. Its
   * walk-cache versions are bumped too: a row changed by other means than `updateSession` (a
   * parent cleared by a deletion) may be one a walk reads.
   */
  touch(sessionId: number): void {
    this.walkRowIds.add(sessionId);
    this.timelineGrew(sessionId);
  }

  /** An event was appended to the session: its `session_updated`, but no walk read changed. */
  private timelineGrew(sessionId: number): void {
    forgetSessionRow(this.tx, sessionId);
    this.touchedIds.add(sessionId);
    this.changeCount++;
  }

  /**
   * The one way a use case changes a session's row: compare-and-set on its version
   * (sessions-repo.ts); false when the row moved since it was read. A change to a column a
   * walk reads marks the session for the walk-cache bump at commit.
   */
  async updateSession(current: Pick<SessionRecord, 'id' | 'version'>, changes: SessionChanges): Promise<boolean> {
    const updated = await updateSessionIfVersion(this.tx, current.id, current.version, changes, this.now);
    if (updated && WALK_READ_CHANGES.some((column) => column in changes)) this.walkRowIds.add(current.id);
    return updated;
  }

  /** The session is gone: no `session_updated` for it. */
  forget(sessionId: number): void {
    forgetSessionRow(this.tx, sessionId);
    this.createdIds.delete(sessionId);
    this.touchedIds.delete(sessionId);
  }

  afterCommit(hook: () => void): void {
    this.afterCommitHooks.push(hook);
  }

  /**
   * An update of a row every writer of its kind takes (a counter such as the held messages),
   * run after the audit append. Every transaction then takes the chain lock before any such
   * row — one lock order: a writer holding the row while it waited for the chain lock, and one
   * holding the chain lock while it waited for the row, would deadlock — and holds the row
   * only from there to COMMIT, so the writers that need it queue for the shortest time.
   */
  hotRowUpdate(update: (tx: Transaction<Database>) => Promise<void>): void {
    this.hotRowUpdates.push(update);
  }

  /**
   * A use case that built a session's final view for its response hands it over here, so the
   * live event reuses it instead of reading the session again. Any later change drops it.
   */
  finalView(view: SessionView, ownerUserId: number | null): void {
    this.finalViews.set(view.id, { view, ownerUserId, version: this.changeCount });
  }

  /**
   * These rows, read in this transaction, are still what the store holds: since they were read
   * only their timelines were appended to (an event bumps a seq no record carries). The live
   * payloads at commit are built from them instead of reading the sessions again; any later
   * change drops them.
   */
  stillCurrent(records: readonly SessionRecord[]): void {
    for (const record of records) this.currentRecords.set(record.id, { record, version: this.changeCount });
  }

  /** Views for live payloads, in `records`' order: each seen by its owner when `scoped`. */
  private async liveViews(records: readonly SessionRecord[], scoped: boolean): Promise<SessionView[]> {
    if (records.length === 0) return [];
    if (!scoped) return sessionViews(this.tx, this.ctx, records, 'all');
    const byOwner = new Map<number | null, SessionRecord[]>();
    for (const r of records) byOwner.set(r.ownerUserId, [...(byOwner.get(r.ownerUserId) ?? []), r]);
    const views = new Map<number, SessionView>();
    for (const [owner, group] of byOwner) for (const v of await sessionViews(this.tx, this.ctx, group, { owners: [owner] })) views.set(v.id, v);
    return records.map((r) => views.get(r.id)!);
  }

  /** Live events first, then the audit chain, then the hot rows: the last statements of the transaction. */
  async flush(): Promise<void> {
    await this.flushLiveAndAudit();
    for (const update of this.hotRowUpdates) await update(this.tx);
  }

  private async flushLiveAndAudit(): Promise<void> {
    const ids = [...new Set([...this.createdIds, ...this.touchedIds])];
    // Multi-user: a live payload reaches the readers of the session's owner, so it names only
    // what that owner may see — the response view a use case built for its caller is not reused.
    const scoped = this.ctx.mode === 'multi-user';
    const fresh = (id: number) => {
      const f = scoped ? undefined : this.finalViews.get(id);
      return f && f.version === this.changeCount ? f : undefined;
    };
    const missing = ids.filter((id) => !fresh(id));
    const current = (id: number) => {
      const c = this.currentRecords.get(id);
      return c && c.version === this.changeCount ? c.record : undefined;
    };
    const unread = missing.filter((id) => !current(id));
    const read = unread.length > 0 ? await findSessionsByIds(this.tx, this.ctx.store, unread) : [];
    // by id, the order a read of them all gives in practice
    const records = unread.length === missing.length ? read : [...missing.flatMap((id) => current(id) ?? []), ...read].sort((x, y) => x.id - y.id);
    const built = await this.liveViews(records, scoped);
    const all = [
      ...ids.map((id) => fresh(id)).filter((f): f is NonNullable<typeof f> => f !== undefined),
      ...built.map((view) => ({ view, ownerUserId: records.find((r) => r.id === view.id)!.ownerUserId })),
    ];
    for (const { view, ownerUserId } of all.reverse()) {
      this.liveDrafts.unshift({
        type: this.createdIds.has(view.id) ? 'session_created' : 'session_updated',
        sessionId: view.id,
        ownerUserId,
        // session payloads in events never carry prompts, transcripts or metadata blobs (docs/api.md)
        payload: { session: serializeSession({ ...view, customMetadata: undefined }) },
      });
    }
    await bumpLineageVersions(this.tx, this.ctx.store, lineageTouched(this.liveDrafts, this.walkRowIds));
    const live = {
      events: this.liveDrafts.map((d) => ({
        type: d.type,
        sessionId: d.sessionId,
        ownerUserId: d.ownerUserId,
        payload: JSON.stringify(d.payload),
        now: this.now,
      })),
      notifyChannel: LIVE_CHANNEL,
    };
    // BENCH-ONLY switch (context.ts): measures the cost of chaining; never set in production.
    if (this.ctx.benchOnly?.skipAuditAppend) {
      await writeLiveEvents(this.tx, this.ctx.store, live);
      return;
    }
    // the live events go with the entries, under the chain lock (one statement on PostgreSQL)
    await appendAuditEntries(this.tx, this.ctx.store, this.auditDrafts, live);
  }

  runAfterCommit(): void {
    for (const hook of this.afterCommitHooks) {
      try {
        hook();
      } catch (error) {
        this.ctx.logger.error({ err: error }, 'after-commit hook failed');
      }
    }
    if (this.liveDrafts.length > 0 || this.createdIds.size > 0 || this.touchedIds.size > 0) this.ctx.live.wake();
  }
}

/**
 * Runs `fn` in one write transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: the pool's
 * READ COMMITTED plus compare-and-set). `graph` takes the graph lock first (docs/operations.md).
 */
export async function inWriteTx<T>(
  ctx: AppContext,
  fn: (w: WriteScope) => Promise<T>,
  options: { graph?: boolean; beforeCommit?: (tx: Transaction<Database>) => Promise<void> } = {},
): Promise<T> {
  let scope: WriteScope | undefined;
  const result = await ctx.store.kysely.transaction().execute(async (tx) => {
    if (options.graph) await ctx.store.lockGraph(tx);
    scope = new WriteScope(ctx, tx);
    const value = await fn(scope);
    await scope.flush();
    // everything is written (on PostgreSQL the last statements go out with the COMMIT, and a
    // failure of theirs comes back as a rollback: isKnownRollback); what fails from here on
    // fails at COMMIT (docs/messages.md `outcome-unknown`)
    await options.beforeCommit?.(tx);
    return value;
  });
  scope?.runAfterCommit();
  return result;
}
