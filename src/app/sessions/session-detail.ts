import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import type { SessionView } from '../views.js';
import { getSession } from './read-sessions.js';

/**
 * `GET /api/v1/sessions/:ref`: the session, with what later capabilities put beside it
 * (hierarchy, human messages, capture gaps) as top-level keys, never inside it (spec 06).
 */
export interface SessionDetail {
  session: SessionView;
}

export async function getSessionDetail(ctx: AppContext, caller: Caller, ref: string): Promise<SessionDetail> {
  return { session: await getSession(ctx, caller, ref) };
}
