import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { getProvenance, type Provenance } from '../lineage/provenance.js';
import { findSessionsByIds } from '../../store/sessions-repo.js';
import { actorAndCause, actorViews, type ActorView } from '../views.js';
import { visibilityOf } from '../access.js';
import { humanRecordOf, type HumanMessageEntry } from '../human-messages/record.js';
import { keyedDigest } from '../audit.js';

/** What the W3C PROV export is built from: the provenance, plus each session's times, cause and digests. */
export interface ProvSource {
  provenance: Provenance;
  sessions: Map<number, { createdAt: string; endedAt: string | null; agentRoot: string | null; cause: (ActorView & { basis: string | null }) | null }>;
  messages: (HumanMessageEntry & { contentHmac: string })[];
  deletions: { sessionId: number; deletedAt: string; humanMessages: number }[];
}

const ENDED = new Set(['stopped', 'failed', 'archived']);
const MAX_MESSAGES = 10_000;

export async function provSource(ctx: AppContext, caller: Caller, ref: string | number): Promise<ProvSource> {
  const provenance = await getProvenance(ctx, caller, ref, { limit: 1 });
  const db = ctx.store.kysely;
  const ids = provenance.hierarchy.nodes.map((n) => n.id);
  const records = await findSessionsByIds(db, ctx.store, ids);
  const causes = await actorViews(db, ctx, records.flatMap((r) => [r.creatorActorId, r.causeActorId]), await visibilityOf(db, ctx, caller));
  const sessions = new Map(
    records.map((r) => {
      // a cause reached through a creator the reader may not see is unnamed with it
      const { cause } = actorAndCause(causes, r.creatorActorId, r.causeActorId);
      return [
        r.id,
        {
          createdAt: r.createdAt,
          endedAt: ENDED.has(r.status) ? r.updatedAt : null,
          agentRoot: r.agentRoot,
          cause: cause === null ? null : { ...cause, basis: r.causeBasis },
        },
      ] as const;
    }),
  );
  // every message of the record, as digests: an export never carries anyone's words
  const messages: ProvSource['messages'] = [];
  let cursor: string | null = null;
  do {
    const page = await humanRecordOf(ctx, provenance.hierarchy, { cursor, limit: 200 });
    const keys = new Map(
      (page.entries.length === 0 ? [] : await db.selectFrom('human_messages').select(['id', 'digest_key']).where('id', 'in', page.entries.map((e) => e.id)).execute()).map((r) => [Number(r.id), r.digest_key]),
    );
    for (const e of page.entries) messages.push({ ...e, contentHmac: keyedDigest(Buffer.from(keys.get(e.id)!, 'hex'), e.content) });
    cursor = page.nextCursor;
  } while (cursor && messages.length < MAX_MESSAGES);
  const deletions: ProvSource['deletions'] = [];
  for (const gap of provenance.humanMessages.gaps) {
    if (gap.kind !== 'deleted-session' || gap.deletedSessionId === undefined) continue;
    const row = await db.selectFrom('session_deletions').select('deleted_at').where('session_id', '=', gap.deletedSessionId).executeTakeFirst();
    if (row) deletions.push({ sessionId: gap.deletedSessionId, deletedAt: row.deleted_at, humanMessages: gap.humanMessages ?? 0 });
  }
  return { provenance, sessions, messages, deletions };
}
