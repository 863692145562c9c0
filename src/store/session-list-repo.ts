import { sql } from 'kysely';
import { LEGACY_PARENT_KEY, legacyParentKeySpellings } from '../core/legacy-parent-key.js';
import type { SessionStatus } from '../core/lifecycle.js';
import { causedSessionIdsSql } from './causation-repo.js';
import { compiledOnce } from './compiled-once.js';
import type { Executor, StoreDialect } from './dialect/dialect.js';
import { ownerVisible } from './owner-visibility.js';
import { selectCore, toRecord, type CoreRow, type SessionRecord } from './sessions-repo.js';

/** Session lists: a page of sessions, newest first, under the filters a list view offers. */

interface SessionListFilter {
  statuses?: SessionStatus[];
  ownerUserId?: number | null;
  /** restrict to sessions visible to a scoped caller: these owners (null = unowned) */
  visibleOwners?: (number | null)[];
  /** children of this session (its uid too: a legacy key may spell the parent as its uid) */
  parent?: { id: number; uid: string };
  rootsOnly?: boolean;
  text?: string;
  /** only the sessions this actor caused (core/causation.ts) */
  causedByActorId?: number;
  beforeId?: number;
  limit: number;
}

// the unfiltered list, a page and the pages after it: what a list view asks most, compiled once
const newestSessionRows = compiledOnce((db, p: { limit: number }, d) => selectCore(db, d).orderBy('id', 'desc').limit(p.limit));
const newestSessionRowsBefore = compiledOnce((db, p: { beforeId: number; limit: number }, d) =>
  selectCore(db, d).where('id', '<', p.beforeId).orderBy('id', 'desc').limit(p.limit),
);

/**
 * Whether each filter is unset, one entry per field of SessionListFilter (the type makes a new
 * field name its check here): only a list with none set takes the compiled statements. An empty
 * `visibleOwners` is set — it hides every session.
 */
const FILTER_UNSET: { [K in Exclude<keyof SessionListFilter, 'beforeId' | 'limit'>]-?: (f: SessionListFilter) => boolean } = {
  statuses: (f) => !f.statuses || f.statuses.length === 0,
  ownerUserId: (f) => f.ownerUserId === undefined,
  visibleOwners: (f) => f.visibleOwners === undefined,
  parent: (f) => f.parent === undefined,
  rootsOnly: (f) => !f.rootsOnly,
  text: (f) => !f.text,
  causedByActorId: (f) => f.causedByActorId === undefined,
};
const unfiltered = (f: SessionListFilter): boolean => Object.values(FILTER_UNSET).every((unset) => unset(f));

export async function listSessions(db: Executor, d: StoreDialect, f: SessionListFilter): Promise<SessionRecord[]> {
  if (unfiltered(f)) {
    const rows =
      f.beforeId === undefined ? await newestSessionRows(db, { limit: f.limit }) : await newestSessionRowsBefore(db, { beforeId: f.beforeId, limit: f.limit });
    return rows.map((r) => toRecord(r as CoreRow));
  }
  let q = selectCore(db, d);
  if (f.statuses && f.statuses.length > 0) q = q.where('status', 'in', f.statuses);
  if (f.ownerUserId !== undefined) q = f.ownerUserId === null ? q.where('owner_user_id', 'is', null) : q.where('owner_user_id', '=', f.ownerUserId);
  if (f.visibleOwners) q = q.where(ownerVisible('owner_user_id', f.visibleOwners));
  if (f.parent !== undefined) {
    const legacy = d.jsonTextField('custom_metadata', LEGACY_PARENT_KEY);
    const parent = f.parent;
    const keys = legacyParentKeySpellings(parent);
    q = q.where((eb) => eb.or([eb('parent_session_id', '=', parent.id), eb.and([eb(legacy, 'in', keys), eb('parent_basis', '=', 'legacy')])]));
  }
  if (f.rootsOnly) q = q.where('parent_session_id', 'is', null).where((eb) => eb.or([eb('parent_basis', 'is', null), eb('parent_basis', '!=', 'legacy')]));
  if (f.text) {
    const needle = `%${f.text.toLowerCase().replace(/[\\%_]/g, (m) => '\\' + m)}%`;
    q = q.where(sql<boolean>`lower(coalesce(title, '')) like ${needle} escape '\\'`);
  }
  if (f.causedByActorId !== undefined) q = q.where(sql<boolean>`id in ${causedSessionIdsSql(f.causedByActorId)}`);
  if (f.beforeId !== undefined) q = q.where('id', '<', f.beforeId);
  const rows = await q.orderBy('id', 'desc').limit(f.limit).execute();
  return rows.map((r) => toRecord(r as CoreRow));
}
