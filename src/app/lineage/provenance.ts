import type { Hierarchy } from '../../core/hierarchy-types.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { humanRecordOf, type HumanRecord } from '../human-messages/record.js';
import { ownerFilterOf, resolveReadable, walkedRowsOf, walkSessionCached } from './hierarchy.js';
import { memoizedUsersByIds } from '../user-reads.js';

/**
 * What `get_session_provenance` and `GET /api/v1/sessions/:ref/provenance` return (docs/human-messages.md
 * "Provenance rendering"): the session hierarchy, and the human-message record gathered over
 * its node set (the node set is the scope human messages are gathered over, docs/concepts.md), one
 * page at a time from `cursor`.
 */
export interface Provenance {
  session: { id: number; uid: string; title: string | null };
  hierarchy: Hierarchy;
  humanMessages: HumanRecord;
}

export async function getProvenance(
  ctx: AppContext,
  caller: Caller,
  ref: string | number,
  page: { cursor?: string | null; limit?: number } = {},
): Promise<Provenance> {
  const { session, visibility } = await resolveReadable(ctx, caller, ref);
  // one request: the nodes' owners and the authors are read once each
  const users = memoizedUsersByIds(ctx.store.kysely);
  const { hierarchy, outcome } = await walkSessionCached(ctx, session, ownerFilterOf(visibility), undefined, users);
  return {
    session: { id: session.id, uid: session.uid, title: session.title },
    hierarchy,
    humanMessages: await humanRecordOf(ctx, hierarchy, page, { ...walkedRowsOf(outcome), users }),
  };
}
