import type { Hierarchy } from '../../core/hierarchy-types.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { ownerFilterOf, resolveReadable, walkSession } from '../lineage/hierarchy.js';
import { sessionView, type SessionView } from '../views.js';

/**
 * `GET /api/v1/sessions/:ref`: the session, with what later capabilities put beside it
 * (hierarchy, human messages, capture gaps) as top-level keys, never inside it (spec 06).
 */
export interface SessionDetail {
  session: SessionView;
  hierarchy: Hierarchy;
}

export async function getSessionDetail(ctx: AppContext, caller: Caller, ref: string): Promise<SessionDetail> {
  const { session, visibility } = await resolveReadable(ctx, caller, ref);
  const [view, walked] = await Promise.all([sessionView(ctx.store.kysely, ctx, session, true), walkSession(ctx, session, ownerFilterOf(visibility))]);
  return { session: view, hierarchy: walked.hierarchy };
}
