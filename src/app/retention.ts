import { parseDuration } from '../core/durations.js';
import { isWarrantError } from '../core/errors.js';
import { sessionsUntouchedSince } from '../store/retention-repo.js';
import { getSetting } from '../store/settings-repo.js';
import { systemCaller } from './caller.js';
import type { AppContext } from './context.js';
import { deleteSession } from './sessions/delete-session.js';
import { archiveSession } from './sessions/lifecycle.js';

/**
 * Housekeeping acts (docs/attribution.md: "automatic archive of idle sessions, retention jobs" are
 * `system` as both actor and cause). Both are off by default and turned on by a setting.
 */
export const SETTING_AUTO_ARCHIVE_AFTER = 'auto_archive_after';
export const SETTING_DELETE_ARCHIVED_AFTER = 'delete_archived_after';

/** Sessions handled per housekeeping run, so one run never holds the store for long. */
const BATCH = 100;

async function cutoff(ctx: AppContext, key: string): Promise<string | null> {
  const text = await getSetting(ctx.store.kysely, key);
  const ms = text ? parseDuration(text) : null;
  if (ms === null || ms === undefined) return null;
  return new Date(ctx.clock.now().getTime() - ms).toISOString();
}

/**
 * Archives stopped and failed sessions untouched for `auto_archive_after`, each with its spawn
 * subtree — but only when the whole subtree is that quiet (a fresh child keeps its parent
 * open) and never over an active descendant (docs/concepts.md's cascade rule). Returns archived ids.
 */
export async function autoArchiveIdleSessions(ctx: AppContext): Promise<number[]> {
  const before = await cutoff(ctx, SETTING_AUTO_ARCHIVE_AFTER);
  if (!before) return [];
  const archived: number[] = [];
  const caller = systemCaller('housekeeping');
  for (const id of await sessionsUntouchedSince(ctx.store.kysely, ['stopped', 'failed'], before, BATCH)) {
    if (archived.includes(id)) continue;
    try {
      const r = await archiveSession(ctx, caller, String(id), null, { staleBefore: before });
      archived.push(...r.archived);
    } catch (error) {
      // deleted or changed meanwhile: the next run sees the new state
      if (!isWarrantError(error)) throw error;
    }
  }
  return archived;
}

/** Deletes sessions archived for `delete_archived_after`; each writes its deletion record (via housekeeping). */
export async function deleteLongArchivedSessions(ctx: AppContext): Promise<number[]> {
  const before = await cutoff(ctx, SETTING_DELETE_ARCHIVED_AFTER);
  if (!before) return [];
  const deleted: number[] = [];
  const caller = systemCaller('housekeeping');
  for (const id of await sessionsUntouchedSince(ctx.store.kysely, ['archived'], before, BATCH)) {
    try {
      await deleteSession(ctx, caller, String(id));
      deleted.push(id);
    } catch (error) {
      if (!isWarrantError(error)) throw error;
    }
  }
  return deleted;
}
