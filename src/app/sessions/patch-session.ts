import { WarrantError } from '../../core/errors.js';
import { codePointLength } from '../../core/text.js';
import { slugify } from '../../core/titles.js';
import { findSessionById, type SessionChanges, type SessionRecord } from '../../store/sessions-repo.js';
import { authorize, requireSession, visibilityOf } from '../access.js';
import { attributionOf, checkActingSessionClaim, resolveActing } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { sessionView, type SessionView } from '../views.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';
import { correctParent } from '../lineage/parent-correction.js';

const MAX_GIVEN_TITLE = 200;

interface PatchSessionInput {
  title?: string;
  starred?: boolean;
  model?: string | null;
  messaging?: 'full' | 'reply-only';
  /** an operator's parent correction (docs/concepts.md): a session ref, or null to clear */
  parentSessionId?: string | number | null;
  actingSessionId?: string | number | null;
}

/** A field's event when it really changed (docs/attribution.md: one event per field, old and new). */
function fieldEvents(
  current: SessionRecord,
  input: PatchSessionInput,
): { changes: SessionChanges; events: { type: string; details: Record<string, unknown> }[] } {
  const changes: SessionChanges = {};
  const events: { type: string; details: Record<string, unknown> }[] = [];
  if (input.title !== undefined && input.title !== current.title) {
    changes.title = input.title;
    // the slug follows the first title applied only
    if (current.slug === null) changes.slug = slugify(input.title);
    events.push({ type: 'title_changed', details: { old: current.title, new: input.title } });
  }
  if (input.starred !== undefined && input.starred !== current.starred) {
    changes.starred = input.starred;
    events.push({ type: input.starred ? 'starred' : 'unstarred', details: { old: current.starred, new: input.starred } });
  }
  if (input.model !== undefined && input.model !== current.model) {
    changes.model = input.model;
    events.push({ type: 'model_changed', details: { old: current.model, new: input.model } });
  }
  if (input.messaging !== undefined && input.messaging !== current.messaging) {
    changes.messaging = input.messaging;
    events.push({ type: 'messaging_changed', details: { old: current.messaging, new: input.messaging } });
  }
  return { changes, events };
}

/**
 * PATCH title, starred, model, messaging and the parent correction: a field set to its current
 * value records nothing. A parent correction is its own act (`patch-parent`: humans and
 * admins) and runs under the graph lock, in the same transaction as the other fields.
 */
export async function patchSession(
  ctx: AppContext,
  caller: Caller,
  ref: string,
  input: PatchSessionInput,
): Promise<{ session: SessionView; changed: string[] }> {
  if (input.title !== undefined) {
    const title = input.title.trim();
    if (title === '') throw new WarrantError('invalid-request', 'title: must not be empty.', { details: { field: 'title' } });
    if (codePointLength(title) > MAX_GIVEN_TITLE)
      throw new WarrantError('invalid-request', `title: at most ${MAX_GIVEN_TITLE} characters.`, { details: { field: 'title' } });
    input = { ...input, title };
  }
  checkActingSessionClaim(caller, input.actingSessionId);
  const correctingParent = input.parentSessionId !== undefined;
  const patchingFields = input.title !== undefined || input.starred !== undefined || input.model !== undefined || input.messaging !== undefined;
  return inWriteTx(
    ctx,
    async (w) => {
      const target = await requireSession(w.tx, ctx, caller, ref);
      if (patchingFields || !correctingParent) await authorize(w.tx, ctx, caller, 'patch', target);
      if (correctingParent) await authorize(w.tx, ctx, caller, 'patch-parent', target);
      const acting = await resolveActing(w, caller, input.actingSessionId);
      await ctx.seams?.afterRead?.('patch', target.id);
      const attribution = attributionOf(acting);
      let current = target;
      const types: string[] = [];
      if (correctingParent) {
        const corrected = await correctParent(w, caller, current, input.parentSessionId ?? null, attribution);
        current = corrected.session;
        if (corrected.changed) types.push('parent_changed');
      }
      const { session, types: fieldTypes } = await applyFieldChanges(w, current, input, attribution);
      return { session: await sessionView(w.tx, ctx, session, await visibilityOf(w.tx, ctx, caller)), changed: [...types, ...fieldTypes] };
    },
    { graph: correctingParent },
  );
}

async function applyFieldChanges(
  w: WriteScope,
  target: SessionRecord,
  input: PatchSessionInput,
  attribution: ReturnType<typeof attributionOf>,
): Promise<{ session: SessionRecord; types: string[] }> {
  let current = target;
  for (let attempt = 0; attempt < 8; attempt++) {
    const { changes, events } = fieldEvents(current, input);
    if (events.length === 0) return { session: current, types: [] };
    if (await w.updateSession(current, changes)) {
      for (const e of events) await w.event(current.id, e.type, e.details, attribution);
      return { session: (await findSessionById(w.tx, w.ctx.store, current.id))!, types: events.map((e) => e.type) };
    }
    const fresh = await findSessionById(w.tx, w.ctx.store, current.id);
    if (!fresh) throw new WarrantError('session-not-found', `Session #${current.id} was deleted meanwhile.`);
    current = fresh;
  }
  throw new WarrantError('store-unavailable', `Session #${target.id} kept changing; nothing was recorded. Retry.`);
}
