import type { HumanMessageEntry, HumanRecord, PersonNote } from '../app/human-messages/record.js';
import { serializeGap } from './coverage-gaps.js';

/** The wire form of human messages, shared by REST, MCP and the CLI. */
export function serializeHumanMessage(e: HumanMessageEntry) {
  return {
    id: e.id,
    session_id: e.sessionId,
    scope: e.scope,
    author: { key: e.author.key, display_name: e.author.displayName, captured_key: e.author.capturedKey },
    channel: e.channel,
    entry_point: e.entryPoint,
    content: e.content,
    slack_permalink: e.slackPermalink,
    inbox_item_id: e.inboxItemId,
    created_at: e.createdAt,
    withdrawn_at: e.withdrawnAt,
    witness_isolation: e.witnessIsolation,
  };
}

function serializePerson(p: PersonNote) {
  return { key: p.key, display_name: p.displayName, notes: p.notes };
}

export function serializeHumanRecord(r: HumanRecord) {
  return {
    counts: { here: r.counts.here, elsewhere: r.counts.elsewhere, is_floor: r.truncated },
    truncated: r.truncated,
    capture_gaps: r.gaps.map(serializeGap),
    entries: r.entries.map(serializeHumanMessage),
    next_cursor: r.nextCursor,
    people: r.people.map(serializePerson),
  };
}
