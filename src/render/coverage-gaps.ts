import type { CoverageGap } from '../core/coverage.js';

/**
 * One sentence per capture gap (docs/human-messages.md), shared by every rendering: the
 * markdown bullets, REST's `human_message_capture_gaps` and the web panel's amber block.
 * None of them may ever contain the affirmative-absence sentence.
 */
const CANNOT_SAY = 'Until then this check cannot be established: read it as "cannot say", never as "no human spoke".';

function sessions(ids: readonly number[]): string {
  return ids.map((id) => `#${id}`).join(', ');
}

const CHANNEL_NAME: Record<string, string> = { web_ui: 'the web UI', slack: 'Slack', cli: 'the CLI' };

const FIX: Record<string, string> = {
  web_ui:
    'set the single admin to a roster user (`warrant settings set admin_user <key>` or WARRANT_ADMIN_USER; the roster is at /supervisor/users), or run in multi-user mode with roster users who can sign in',
  slack:
    'configure Slack ingress (`warrant settings set slack_signing_secret …`) and map Slack ids to roster users (/supervisor/users or `warrant users edit <key> --slack <id>`)',
  cli: 'issue human tokens to the people who use the CLI (`warrant users tokens issue <key>`)',
};

function when(iso: string): string {
  return iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
}

export function gapSentence(gap: CoverageGap): string {
  switch (gap.kind) {
    case 'not-instrumented': {
      const where =
        gap.channel === 'web_ui'
          ? `any session of this hierarchy (${sessions(gap.sessionIds)})`
          : `${sessions(gap.sessionIds)}, started from ${CHANNEL_NAME[gap.channel]}`;
      return `Capture is NOT configured for ${CHANNEL_NAME[gap.channel]}: a human could have spoken into ${where} and nothing would have recorded it. Fix: ${FIX[gap.channel]}. ${CANNOT_SAY}`;
    }
    case 'instrumented-late':
      return `${CHANNEL_NAME[gap.channel]![0]!.toUpperCase()}${CHANNEL_NAME[gap.channel]!.slice(1)} capture began ${when(gap.since!)}; before that this hierarchy (${sessions(gap.sessionIds)}) could not have been captured there. Read the time before as "cannot say", never as "no human spoke".`;
    case 'unknown-origin':
      return `Capture is NOT possible for sessions of unknown origin (${sessions(gap.sessionIds)}): nothing records where their work came from. Read their absence as "cannot say", never as "no human spoke".`;
    case 'terminal-unwitnessed': {
      const runs = gap.activations?.length ?? 1;
      const more = runs > 1 ? `; ${runs} runs had a terminal` : '';
      const cannotSay = CANNOT_SAY.replace('Until then this', 'This');
      if (gap.unmatchedAt && gap.matchPending) {
        return `A prompt typed at the agent terminal of ${sessions(gap.sessionIds)} (${when(gap.unmatchedAt)}${more}) is not matched yet: until the runner's witness and the agent's report agree (within seconds, or never), a human may have asked for this there and nothing records it. ${cannotSay}`;
      }
      if (gap.unmatchedAt) {
        return `A prompt typed at the agent terminal of ${sessions(gap.sessionIds)} (${when(gap.unmatchedAt)}${more}) was not witnessed: a human may have asked for this there, and nothing recorded it. Only a prompt the runner witnessed (\`warrant run\` with a human token, typed turn equal to what the agent took) or one sent with a human token (\`warrant follow-up\`) is on record. ${cannotSay}`;
      }
      return `The agent terminal of ${sessions(gap.sessionIds)} (started ${when(gap.startedAt!)}${more}) was not witnessed: a human may have typed a request there, and nothing recorded it (no witness ran with a human token, or the run ended without its closing report). To put a request on record, start \`warrant run\` with a human token or send it with one (\`warrant follow-up\`). ${cannotSay}`;
    }
    case 'deleted-session':
      return `A deleted session (#${gap.deletedSessionId}) of this hierarchy held ${gap.humanMessages} human message${gap.humanMessages === 1 ? '' : 's'}; they went with it (the audit log keeps their digests, see \`GET /api/v1/session_deletions\`). Read the record as incomplete.`;
  }
}

export function serializeGap(gap: CoverageGap) {
  return {
    channel: gap.channel,
    kind: gap.kind,
    session_ids: gap.sessionIds,
    ...(gap.since ? { since: gap.since } : {}),
    ...(gap.deletedSessionId !== undefined ? { deleted_session_id: gap.deletedSessionId, human_messages: gap.humanMessages } : {}),
    ...(gap.startedAt !== undefined ? { started_at: gap.startedAt, activations: gap.activations ?? [] } : {}),
    ...(gap.unmatchedAt !== undefined ? { unmatched_at: gap.unmatchedAt } : {}),
    ...(gap.matchPending ? { match_pending: true as const } : {}),
    message: gapSentence(gap),
  };
}
