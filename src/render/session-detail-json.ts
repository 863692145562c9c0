import type { SessionDetail } from '../app/sessions/session-detail.js';
import { serializeGap } from './coverage-gaps.js';
import { serializeHierarchy } from './hierarchy-json.js';
import { serializeHumanMessage } from './human-messages-json.js';
import { serializeSession } from './session-json.js';

/** docs/api.md: top-level keys beside `session`; `human_messages` a bare array of the newest 25, each with its scope. */
export function serializeSessionDetail(detail: SessionDetail) {
  return {
    session: serializeSession(detail.session),
    session_hierarchy: serializeHierarchy(detail.hierarchy),
    human_messages: detail.humanMessages.entries.map(serializeHumanMessage),
    human_messages_next_cursor: detail.humanMessages.nextCursor,
    human_message_counts: {
      here: detail.humanMessages.counts.here,
      elsewhere: detail.humanMessages.counts.elsewhere,
      is_floor: detail.humanMessages.truncated,
    },
    human_message_capture_gaps: detail.humanMessages.gaps.map(serializeGap),
  };
}
