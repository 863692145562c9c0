import { checkReportedText } from '../../core/conversations.js';
import { WarrantError } from '../../core/errors.js';
import { lockSessionRow } from '../../store/conversations-repo.js';
import { findRuntimeChild, type RuntimeOrigin } from '../../store/sessions-repo.js';
import { authorize, requireSession, visibilityOf } from '../access.js';
import { attributionOf, resolveActing } from '../acting.js';
import type { Caller } from '../caller.js';
import type { AppContext } from '../context.js';
import { checkReport, providerMismatch } from '../conversations/conversation-history.js';
import { decideTransition, isActive } from '../../core/lifecycle.js';
import { sessionView, type SessionView } from '../views.js';
import { inWriteTx } from '../write-scope.js';
import { attachRuntimeChild } from './attach-runtime.js';
import { createSessionIn } from './create-session.js';

/**
 * docs/design/agent-runtimes.md "Subagents are sessions": a runtime creates a child session for
 * each built-in subagent (Claude Code's Agent tool, Codex's spawn_agent) and each nested agent
 * started inside it, with its own session token — an authenticated spawn edge, the parent
 * session as creator. One child per (parent, provider, conversation): the same conversation
 * again (a resumed subagent) attaches the same child again. The parent's token then reports
 * that child's runtime, conversation and transcript — and nothing else as it.
 */
const RUNTIME_ORIGINS: readonly RuntimeOrigin[] = ['subagent', 'nested-agent'];
const MAX_AGENT_ROOT_LENGTH = 64;

interface RuntimeChildInput {
  origin: unknown;
  provider: unknown;
  conversationId: unknown;
  agentRoot?: unknown;
  transcriptPath?: unknown;
}

interface RuntimeChildResult {
  session: SessionView;
  /** false: the child existed already and was attached again (or was running) */
  created: boolean;
}

export async function createRuntimeChild(ctx: AppContext, caller: Caller, ref: string, input: RuntimeChildInput): Promise<RuntimeChildResult> {
  if (typeof input.origin !== 'string' || !(RUNTIME_ORIGINS as readonly string[]).includes(input.origin)) {
    throw new WarrantError('invalid-request', `origin: one of ${RUNTIME_ORIGINS.join(', ')}.`, { details: { field: 'origin' } });
  }
  const origin = input.origin as RuntimeOrigin;
  const report = checkReport({ provider: input.provider, conversationId: input.conversationId, transcriptPath: input.transcriptPath });
  const root = checkReportedText(input.agentRoot, 'agent_root', MAX_AGENT_ROOT_LENGTH, { optional: true });
  if (!root.ok) throw new WarrantError('invalid-request', `${root.reason}.`, { details: { field: 'agent_root' } });
  const agentRoot = root.value;

  return inWriteTx(ctx, async (w) => {
    const parent = await requireSession(w.tx, ctx, caller, ref);
    await authorize(w.tx, ctx, caller, 'create-runtime-child', parent);
    // a built-in subagent runs on its parent's provider; a nested agent may be another CLI
    if (origin === 'subagent' && parent.provider !== null && parent.provider !== report.provider) throw providerMismatch(parent, report.provider);
    await ctx.seams?.afterRead?.('runtime-child', parent.id);
    // the parent row's lock orders two starts of the same subagent: the second finds the first's child
    await lockSessionRow(w.tx, parent.id);
    const existing = await findRuntimeChild(w.tx, ctx.store, parent.id, report.provider, report.conversationId);
    if (existing) {
      // running or idle: already attached, nothing to record
      if (isActive(existing.status)) return { session: await sessionView(w.tx, ctx, existing, await visibilityOf(w.tx, ctx, caller)), created: false };
      if (decideTransition(existing.status, 'attach').kind !== 'change') {
        throw new WarrantError(
          'invalid-transition',
          `Cannot attach session #${existing.id} (the ${origin} of conversation ${report.conversationId}) again: it is ${existing.status}.`,
          {
            details: { session_id: existing.id, status: existing.status },
          },
        );
      }
      const acting = await resolveActing(w, caller, null);
      const attached = await attachRuntimeChild(w, existing, attributionOf(acting), parent.id);
      const view = await sessionView(w.tx, ctx, attached, await visibilityOf(w.tx, ctx, caller));
      w.finalView(view, attached.ownerUserId);
      return { session: view, created: false };
    }
    const created = await createSessionIn(w, caller, {
      title: `${agentRoot ?? origin} (${origin} of #${parent.id})`,
      agentRoot,
      provider: report.provider,
      providerConversation: report.conversationId,
      runtime: { origin, transcriptPath: report.transcriptPath },
    });
    return { session: created.session, created: true };
  });
}
