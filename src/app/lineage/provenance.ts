import type { Hierarchy } from '../../core/hierarchy-types.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { humanRecordOf, type HumanRecord } from '../human-messages/record.js';
import { ownerFilterOf, resolveReadable, walkSession } from './hierarchy.js';

/**
 * What `get_session_provenance` and `GET /api/v1/sessions/:ref/provenance` return (spec 03
 * "Provenance rendering"): the session hierarchy, and the human-message record gathered over
 * its node set (the node set is the scope human messages are gathered over, spec 02), one
 * page at a time from `cursor`.
 */
export interface Provenance {
  session: { id: number; uid: string; title: string | null };
  hierarchy: Hierarchy;
  humanMessages: HumanRecord;
}

export async function getProvenance(ctx: AppContext, caller: Caller, ref: string | number, page: { cursor?: string | null; limit?: number } = {}): Promise<Provenance> {
  const { session, visibility } = await resolveReadable(ctx, caller, ref);
  const { hierarchy } = await walkSession(ctx, session, ownerFilterOf(visibility));
  return { session: { id: session.id, uid: session.uid, title: session.title }, hierarchy, humanMessages: await humanRecordOf(ctx, hierarchy, page) };
}
