import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { getProvenance, type Provenance } from '../lineage/provenance.js';
import { findSessionsByIds } from '../../store/sessions-repo.js';
import { humanMessageDigestKeys } from '../../store/human-messages-repo.js';
import { deletionTimes } from '../../store/deletions-repo.js';
import { messagesTouchingSessions } from '../../store/messages-repo.js';
import { effectiveMessageState, type MessageState } from '../../core/message-envelope.js';
import type { Basis } from '../../core/basis.js';
import { ENDED_STATUSES } from '../../core/lifecycle.js';
import { actorAndCause, actorViews, type ActorView } from '../views.js';
import { visibilityOf } from '../access.js';
import { humanRecordOf, type HumanMessageEntry } from '../human-messages/record.js';
import { keyedDigest } from '../audit.js';

/** One agent message between sessions of the exported hierarchy: its envelope, never its payload. */
export interface ProvAgentMessage {
  id: string;
  conversationRef: string;
  replyTo: string | null;
  sourceSessionId: number;
  sourceBasis: 'authenticated' | 'declared';
  targetSessionId: number;
  state: MessageState;
  terminalReason: string | null;
  acceptedAt: string;
  terminalAt: string | null;
}

/** What the W3C PROV export is built from: the provenance, plus each session's times, cause and digests. */
export interface ProvSource {
  provenance: Provenance;
  sessions: Map<
    number,
    { createdAt: string; endedAt: string | null; agentRoot: string | null; parentBasis: Basis | null; cause: (ActorView & { basis: string | null }) | null }
  >;
  messages: (HumanMessageEntry & { contentHmac: string })[];
  agentMessages: ProvAgentMessage[];
  deletions: { sessionId: number; deletedAt: string; humanMessages: number }[];
}

const MAX_MESSAGES = 10_000;

export async function provSource(ctx: AppContext, caller: Caller, ref: string | number): Promise<ProvSource> {
  const provenance = await getProvenance(ctx, caller, ref, { limit: 1 });
  const db = ctx.store.kysely;
  const ids = provenance.hierarchy.nodes.map((n) => n.id);
  const records = await findSessionsByIds(db, ctx.store, ids);
  const causes = await actorViews(
    db,
    ctx,
    records.flatMap((r) => [r.creatorActorId, r.causeActorId]),
    await visibilityOf(db, ctx, caller),
  );
  const sessions = new Map(
    records.map((r) => {
      // a cause reached through a creator the reader may not see is unnamed with it
      const { cause } = actorAndCause(causes, r.creatorActorId, r.causeActorId);
      return [
        r.id,
        {
          createdAt: r.createdAt,
          endedAt: ENDED_STATUSES.has(r.status) ? r.updatedAt : null,
          agentRoot: r.agentRoot,
          parentBasis: r.parentBasis,
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
    const keys = await humanMessageDigestKeys(
      db,
      page.entries.map((e) => e.id),
    );
    for (const e of page.entries) messages.push({ ...e, contentHmac: keyedDigest(Buffer.from(keys.get(e.id)!, 'hex'), e.content) });
    cursor = page.nextCursor;
  } while (cursor && messages.length < MAX_MESSAGES);
  // agent messages between sessions of the hierarchy: envelopes only (the payload is the parties' to read)
  const inTree = new Set(ids);
  const now = ctx.clock.now().toISOString();
  const agentMessages = (await messagesTouchingSessions(db, ids, MAX_MESSAGES))
    .filter((m) => inTree.has(m.sourceSessionId) && inTree.has(m.targetSessionId))
    .map((m): ProvAgentMessage => {
      const seen = effectiveMessageState(m, now);
      return {
        id: m.id,
        conversationRef: m.conversationRef,
        replyTo: m.replyTo,
        sourceSessionId: m.sourceSessionId,
        sourceBasis: m.sourceBasis,
        targetSessionId: m.targetSessionId,
        state: seen.state,
        terminalReason: m.terminalReason,
        acceptedAt: m.acceptedAt,
        terminalAt: seen.terminalAt,
      };
    });
  const deletedIds = provenance.humanMessages.gaps.flatMap((g) =>
    g.kind === 'deleted-session' && g.deletedSessionId !== undefined ? [{ id: g.deletedSessionId, n: g.humanMessages ?? 0 }] : [],
  );
  const times = await deletionTimes(
    db,
    deletedIds.map((d) => d.id),
  );
  const deletions = deletedIds.flatMap((d) => (times.has(d.id) ? [{ sessionId: d.id, deletedAt: times.get(d.id)!, humanMessages: d.n }] : []));
  return { provenance, sessions, messages, agentMessages, deletions };
}
