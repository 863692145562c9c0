import { findSessionById } from '../../store/sessions-repo.js';
import { authorize } from '../access.js';
import { resolveActing } from '../acting.js';
import { captureHumanWords } from '../human-messages/capture.js';
import { addInboxItem, requireDeliverable } from '../inbox/inbox-items.js';
import { inWriteTx } from '../write-scope.js';
import type { SlackFollowUp } from './ingress.js';
import { WarrantError } from '../../core/errors.js';

/**
 * A Slack thread reply follows up the session its thread started: one transaction holds the
 * delivery, the human message and the de-duplication claim. Humans are never uncles, so no
 * edge is recorded.
 */
export const slackFollowUp: SlackFollowUp = async (ctx, caller, sessionId, words, within) => {
  await inWriteTx(ctx, async (w) => {
    const target = await findSessionById(w.tx, ctx.store, sessionId);
    if (!target) throw new WarrantError('session-not-found', `The session #${sessionId} this Slack thread started was deleted.`);
    await authorize(w.tx, ctx, caller, 'deliver', target);
    requireDeliverable(target);
    const acting = await resolveActing(w, caller, null);
    const item = await addInboxItem(w, { target, kind: 'follow_up', mode: 'next_turn', content: words.content, acting });
    await captureHumanWords(w, caller, target, {
      entryPoint: words.entryPoint,
      content: words.content,
      inboxItemId: item.id,
      slackPermalink: words.slackPermalink,
    });
    await within(w);
  });
};
