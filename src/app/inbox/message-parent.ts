import { WarrantError } from '../../core/errors.js';
import { findSessionById } from '../../store/sessions-repo.js';
import { authorize, requireLiveSessionToken, requireSession, visibilityOf } from '../access.js';
import { resolveActing } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { lineageParents } from '../views.js';
import { inWriteTx } from '../write-scope.js';
import { addInboxItem, checkInboxContent, inboxItemViews, requireDeliverable, type InboxItemView } from './inbox-items.js';

/**
 * docs/concepts.md: `message_parent` names no target — the target is
 * the caller's lineage parent — so it is safe on every session's self surface. Only the
 * session itself (its own, live token) may send it; it writes no uncle edge (the graph
 * already relates them) and logs `inbox_item_added` on the parent and `inbox_item_sent` on
 * the child. `ref`, when given (REST), must name the token's own session.
 */
export async function messageParent(
  ctx: AppContext,
  caller: Caller,
  ref: string | null,
  content: string,
): Promise<{ item: InboxItemView; parentSessionId: number }> {
  const text = checkInboxContent(content);
  const p = caller.principal;
  if (p.kind !== 'session') {
    throw new WarrantError('forbidden', 'Not allowed: message_parent is sent by a session with its own session token.', { details: { act: 'message-parent' } });
  }
  return inWriteTx(ctx, async (w) => {
    if (ref !== null) {
      const named = await requireSession(w.tx, ctx, caller, ref);
      if (named.id !== p.sessionId) {
        throw new WarrantError('forbidden', `Not allowed: a session token may only message its own parent (this token is session #${p.sessionId}'s).`, {
          details: { act: 'message-parent' },
        });
      }
    }
    const self = await requireLiveSessionToken(w.tx, ctx, p.sessionId, p.activation);
    const parentId = (await lineageParents(w.tx, ctx, [self])).get(self.id) ?? null;
    const parent = parentId === null ? null : await findSessionById(w.tx, ctx.store, parentId);
    if (!parent) throw new WarrantError('no-parent', `Session #${self.id} has no parent to message.`, { details: { session_id: self.id } });
    await authorize(w.tx, ctx, caller, 'deliver', parent);
    requireDeliverable(parent);
    const acting = await resolveActing(w, caller, null);
    const item = await addInboxItem(w, { target: parent, kind: 'parent_message', mode: 'next_turn', content: text, acting });
    const [view] = await inboxItemViews(w.tx, ctx, [item], await visibilityOf(w.tx, ctx, caller));
    return { item: view!, parentSessionId: parent.id };
  });
}
