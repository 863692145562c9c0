import type { Executor } from '../../store/dialect/dialect.js';
import type { AffectedItem } from '../../store/deletions-repo.js';
import type { SessionRecord } from '../../store/sessions-repo.js';
import type { AppContext } from '../context.js';

/**
 * What a delete takes with it or changes, gathered before the row goes (app/sessions/delete-session.ts
 * runs them; the uncle edges' collector lives with the uncle edges).
 */
export type DeletionCollector = (
  db: Executor,
  ctx: AppContext,
  session: SessionRecord,
) => Promise<{ affected?: AffectedItem[]; counts?: { events?: number; humanMessages?: number } }>;
