import { WarrantError } from '../../core/errors.js';
import { codePointLength } from '../../core/text.js';
import { slugify } from '../../core/titles.js';
import { findSessionById, updateSessionIfVersion, type SessionChanges, type SessionRecord } from '../../store/sessions-repo.js';
import { authorize, requireSession } from '../access.js';
import { attributionOf, checkActingSessionClaim, resolveActing } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { sessionView, type SessionView } from '../views.js';
import { inWriteTx, type WriteScope } from '../write-scope.js';

export const MAX_GIVEN_TITLE = 200;

export interface PatchSessionInput {
  title?: string;
  starred?: boolean;
  model?: string | null;
  messaging?: 'full' | 'reply-only';
  actingSessionId?: string | number | null;
}

/** A field's event when it really changed (spec 04: one event per field, old and new). */
function fieldEvents(current: SessionRecord, input: PatchSessionInput): { changes: SessionChanges; events: { type: string; details: Record<string, unknown> }[] } {
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

/** PATCH title, starred, model, messaging: a field set to its current value records nothing. */
export async function patchSession(ctx: AppContext, caller: Caller, ref: string, input: PatchSessionInput): Promise<{ session: SessionView; changed: string[] }> {
  if (input.title !== undefined) {
    const title = input.title.trim();
    if (title === '') throw new WarrantError('invalid-request', 'title: must not be empty.', { details: { field: 'title' } });
    if (codePointLength(title) > MAX_GIVEN_TITLE) throw new WarrantError('invalid-request', `title: at most ${MAX_GIVEN_TITLE} characters.`, { details: { field: 'title' } });
    input = { ...input, title };
  }
  checkActingSessionClaim(caller, input.actingSessionId);
  return inWriteTx(ctx, async (w) => {
    const target = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'patch', target);
    const acting = await resolveActing(w, caller, input.actingSessionId);
    await ctx.seams?.afterRead?.('patch', target.id);
    const { session, types } = await applyFieldChanges(w, target, input, attributionOf(acting));
    return { session: await sessionView(w.tx, ctx, session), changed: types };
  });
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
    if (await updateSessionIfVersion(w.tx, current.id, current.version, changes, w.now)) {
      for (const e of events) await w.event(current.id, e.type, e.details, attribution);
      return { session: (await findSessionById(w.tx, w.ctx.store, current.id))!, types: events.map((e) => e.type) };
    }
    const fresh = await findSessionById(w.tx, w.ctx.store, current.id);
    if (!fresh) throw new WarrantError('session-not-found', `Session #${current.id} was deleted meanwhile.`);
    current = fresh;
  }
  throw new WarrantError('store-unavailable', `Session #${target.id} kept changing; nothing was recorded. Retry.`);
}
