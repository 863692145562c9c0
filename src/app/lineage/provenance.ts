import type { Hierarchy } from '../../core/hierarchy-types.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { ownerFilterOf, resolveReadable, walkSession } from './hierarchy.js';

/**
 * What `get_session_provenance` and `GET /api/v1/sessions/:ref/provenance` return (spec 03
 * "Provenance rendering"): the session hierarchy now; the human-message record (with its
 * `cursor`) joins it as a further section, computed over `hierarchy.nodes` — the node set
 * is the scope human messages are gathered over (spec 02).
 */
export interface Provenance {
  session: { id: number; uid: string; title: string | null };
  hierarchy: Hierarchy;
}

export async function getProvenance(ctx: AppContext, caller: Caller, ref: string | number): Promise<Provenance> {
  const { session, visibility } = await resolveReadable(ctx, caller, ref);
  const { hierarchy } = await walkSession(ctx, session, ownerFilterOf(visibility));
  return { session: { id: session.id, uid: session.uid, title: session.title }, hierarchy };
}
