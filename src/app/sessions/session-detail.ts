import type { Hierarchy } from '../../core/hierarchy-types.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { humanRecordAndSummaryOf, humanRecordOf, type HumanRecord, type HumanSummary } from '../human-messages/record.js';
import { ownerFilterOf, resolveReadable, walkedRowsOf, walkSessionCached } from '../lineage/hierarchy.js';
import { sessionView, type SessionView } from '../views.js';
import { memoizedUsersByIds } from '../user-reads.js';

/**
 * `GET /api/v1/sessions/:ref` and `get_session`: the session, with its hierarchy and the
 * human-message record beside it as top-level keys, never inside it (docs/api.md). The text
 * surfaces render the record summarised (docs/human-messages.md), REST carries
 * the newest page of it.
 */
export interface SessionDetail {
  session: SessionView;
  hierarchy: Hierarchy;
  humanMessages: HumanRecord;
  humanSummary: HumanSummary | null;
}

export async function getSessionDetail(ctx: AppContext, caller: Caller, ref: string, options: { summary?: boolean } = {}): Promise<SessionDetail> {
  const { session, visibility } = await resolveReadable(ctx, caller, ref);
  // one request: the view's owner, the nodes' owners and the authors are read once each
  const users = memoizedUsersByIds(ctx.store.kysely);
  const [view, walked] = await Promise.all([
    sessionView(ctx.store.kysely, ctx, session, visibility, true, { users }),
    walkSessionCached(ctx, session, ownerFilterOf(visibility), undefined, users),
  ]);
  const reads = { ...walkedRowsOf(walked.outcome), users };
  if (!options.summary)
    return { session: view, hierarchy: walked.hierarchy, humanMessages: await humanRecordOf(ctx, walked.hierarchy, {}, reads), humanSummary: null };
  const { record, summary } = await humanRecordAndSummaryOf(ctx, walked.hierarchy, reads);
  return { session: view, hierarchy: walked.hierarchy, humanMessages: record, humanSummary: summary };
}
