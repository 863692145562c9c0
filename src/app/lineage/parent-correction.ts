import { WarrantError } from '../../core/errors.js';
import { loadHierarchyRows } from '../../store/lineage-repo.js';
import type { EventAttribution } from '../../store/events-repo.js';
import { findSessionById, type SessionRecord } from '../../store/sessions-repo.js';
import { resolveRef, visibilityOf } from '../access.js';
import type { Caller } from '../caller.js';
import { lineageParents } from '../views.js';
import type { WriteScope } from '../write-scope.js';
import { announceLineageChange } from './lineage-changes.js';
import { reachesFromAbove } from './upward-reach.js';

const MAX_ATTEMPTS = 8;

/**
 * docs/concepts.md: an operator's correction of a wrong record. Runs inside the
 * caller's write transaction, which must hold the graph lock. The new parent must be
 * visible, of the same owner (multi-user), older than the session, and not reachable from it
 * going down over any edges (an upward search from the new parent, bounded by the budget).
 * `null` clears the column — refused when the parent came from the legacy key, which is
 * never rewritten: re-point it instead. Setting the current value records nothing.
 */
export async function correctParent(
  w: WriteScope,
  caller: Caller,
  target: SessionRecord,
  requested: string | number | null,
  attribution: EventAttribution,
): Promise<{ session: SessionRecord; changed: boolean }> {
  const ctx = w.ctx;
  let parent: SessionRecord | null = null;
  if (requested !== null) {
    const visibility = await visibilityOf(w.tx, ctx, caller);
    const r = await resolveRef(w.tx, ctx, visibility, requested);
    if (!r.session) {
      const why =
        r.reason === 'ambiguous-prefix'
          ? ' (the uid prefix matches more than one session)'
          : r.reason === 'prefix-too-short'
            ? ' (a uid prefix needs at least 8 hex characters)'
            : '';
      throw new WarrantError('parent-not-found', `parent_session_id: no session matches ${JSON.stringify(String(requested))}${why}.`, {
        details: { field: 'parent_session_id', reason: r.reason },
      });
    }
    parent = r.session;
  }

  let current = target;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const oldParentId = (await lineageParents(w.tx, ctx, [current])).get(current.id) ?? null;
    if (parent === null) {
      if (current.parentBasis === 'legacy') {
        throw new WarrantError(
          'legacy-parent',
          `Session #${current.id}'s parent comes from the legacy key custom_metadata.router_session_id, which is never rewritten; it cannot be cleared — correct it by naming the right parent instead.`,
          { details: { field: 'parent_session_id', lineage_parent_id: oldParentId } },
        );
      }
      if (current.parentSessionId === null) return { session: current, changed: false };
    } else {
      if (parent.id >= current.id) {
        throw new WarrantError(
          'parent-not-older',
          `parent_session_id: #${parent.id} is not older than #${current.id}; a spawn parent is always created before its child.`,
          {
            details: { field: 'parent_session_id', parent_session_id: parent.id },
          },
        );
      }
      // Null equals only null (docs/concepts.md): nobody staples a session under another user's tree.
      if (ctx.mode === 'multi-user' && parent.ownerUserId !== current.ownerUserId) {
        throw new WarrantError('parent-owner-mismatch', `parent_session_id: #${parent.id} belongs to another owner than #${current.id}.`, {
          details: { field: 'parent_session_id', parent_session_id: parent.id },
        });
      }
      if (current.parentBasis !== 'legacy' && current.parentSessionId === parent.id) return { session: current, changed: false };
      const [parentRow] = await loadHierarchyRows(w.tx, ctx.store, [parent.id]);
      const reach = parentRow ? await reachesFromAbove(w.tx, ctx.store, parentRow, current.id) : 'not-found';
      if (reach === 'found') {
        throw new WarrantError(
          'parent-cycle',
          `parent_session_id: #${current.id} reaches #${parent.id} going down, so #${parent.id} cannot become its parent (that would make a cycle).`,
          {
            details: { field: 'parent_session_id', parent_session_id: parent.id },
          },
        );
      }
      if (reach === 'exhausted') {
        throw new WarrantError(
          'parent-cycle-unproven',
          `parent_session_id: the search above #${parent.id} exhausted its budget before it could prove that #${current.id} does not reach it; nothing was changed.`,
          { details: { field: 'parent_session_id', parent_session_id: parent.id } },
        );
      }
    }
    const newParentId = parent?.id ?? null;
    if (await w.updateSession(current, { parentSessionId: newParentId, parentBasis: 'corrected' })) {
      await w.event(
        current.id,
        'parent_changed',
        { old: oldParentId, new: newParentId, old_basis: current.parentBasis, new_basis: 'corrected', old_parent_session_id: current.parentSessionId },
        attribution,
      );
      announceLineageChange(w, {
        kind: 'parent_changed',
        sessionIds: [current.id, ...(oldParentId !== null ? [oldParentId] : []), ...(newParentId !== null ? [newParentId] : [])],
      });
      return { session: (await findSessionById(w.tx, ctx.store, current.id))!, changed: true };
    }
    const fresh = await findSessionById(w.tx, ctx.store, current.id);
    if (!fresh) throw new WarrantError('session-not-found', `Session #${current.id} was deleted meanwhile.`);
    current = fresh;
  }
  throw new WarrantError('store-unavailable', `Session #${target.id} kept changing; nothing was recorded. Retry.`);
}
