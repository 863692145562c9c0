/**
 * The timeline in words: what each session event says, as the predicate of a sentence whose
 * subject is the event's actor ("Alice asked a follow-up"). Runtime-state events have no actor;
 * their subject is the session's runtime. Pure: the web timeline renders it, a test covers
 * every event type the store writes (docs/attribution.md "The events").
 */

type Details = Readonly<Record<string, unknown>>;
type Phrase = string | ((d: Details) => string);

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** What a human's message was, by the form or channel it came through (docs/human-messages.md). */
function humanMessagePhrase(d: Details): string {
  const entry = str(d.entry_point) ?? '';
  const [, point = ''] = entry.split('.');
  switch (point) {
    case 'follow_up':
      return 'asked a follow-up';
    case 'enqueued_message':
      return 'queued a message for when the session is idle';
    case 'interrupt':
      return 'interrupted the session with a message';
    case 'new_session':
    case 'quick_prompt':
    case 'run_prompt':
      return 'gave the session its prompt';
    case 'chat_bubble':
      return 'wrote in the chat bubble';
    case 'terminal_prompt':
      return 'typed a prompt at the agent’s terminal';
    case 'dm':
      return 'wrote to the session in a Slack direct message';
    case 'channel_message':
      return 'wrote to the session in a Slack channel';
    default:
      return 'wrote a human message to the session';
  }
}

const INBOX_KIND_ADDED: Record<string, string> = {
  follow_up: 'sent a follow-up to the inbox',
  enqueued: 'queued a message in the inbox',
  agent_message: 'sent this session an agent message',
  parent_message: 'sent this session a message from a child session',
  control: 'asked the runtime to stop (a control item in the inbox)',
};

function inboxAddedPhrase(d: Details): string {
  if (d.mode === 'interrupt' && d.kind !== 'control') return 'interrupted the session through the inbox';
  if (d.kind === 'agent_message' && str(d.reply_to)) return 'replied to this session with an agent message';
  return INBOX_KIND_ADDED[str(d.kind) ?? ''] ?? 'added an item to the inbox';
}

function inboxSentPhrase(d: Details): string {
  if (d.kind === 'agent_message') return str(d.reply_to) ? 'sent a reply to another session' : 'sent an agent message to another session';
  if (d.kind === 'parent_message') return 'sent a message to its parent session';
  return 'sent an inbox item to another session';
}

/** Every event type the store writes, and what it says. */
const PHRASES: Record<string, Phrase> = {
  created: 'created this session',
  title_generated: 'gave the session a title',
  attached: (d) => (d.runtime_parent_id !== undefined ? 'attached the session to its parent’s runtime' : 'attached a runtime to the session'),
  token_minted: 'minted a session token for the runtime',
  title_changed: 'renamed the session',
  starred: 'starred the session',
  unstarred: 'unstarred the session',
  model_changed: 'changed the session’s model',
  messaging_changed: 'changed whom the session may message',
  archived: 'archived the session',
  unarchived: 'unarchived the session',
  stopped: 'stopped the session',
  resumed: 'resumed the session',
  stop_requested: 'asked the session’s runtime to stop',
  started: 'started working',
  idle: 'went idle',
  exited: 'exited cleanly',
  error: 'ended with an error',
  inbox_item_added: inboxAddedPhrase,
  inbox_item_sent: inboxSentPhrase,
  inbox_item_written: 'wrote an inbox item into the agent',
  inbox_item_delivered: 'delivered an inbox item to the agent',
  inbox_item_undelivered: 'found an inbox item undelivered: no prompt report matched it in time',
  inbox_item_resent: 'put an undelivered inbox item back in the queue',
  inbox_item_retired: 'retired a stop request its runtime never acknowledged',
  inbox_item_promoted: 'moved a queued message ahead',
  inbox_item_withdrawn: 'withdrew a queued message',
  conversation_changed: (d) =>
    d.old === null || d.old === undefined ? 'bound the session to a provider conversation' : 'moved the session to another provider conversation',
  transcript_appended: 'appended to the transcript',
  uncle_linked: 'recorded an also-senior (uncle) edge',
  uncle_inverted: 'reversed the direction of an uncle edge',
  uncle_removed: 'removed an uncle edge',
  parent_changed: 'corrected the session’s parent',
  human_message: humanMessagePhrase,
  witness_minted: 'minted a terminal witness for the run',
  terminal_closed: 'closed the agent’s terminal',
};

/** Every event type the mapping covers (for the test that each one reads as words). */
export const SENTENCE_EVENT_TYPES: readonly string[] = Object.keys(PHRASES);

/**
 * A snake_case or kebab-case name in plain words.
 * @example humanise('inbox_item_added') // 'inbox item added'
 */
export function humanise(name: string): string {
  return name
    .replace(/[_\-.]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase();
}

/**
 * The predicate of an event's sentence; an unknown type reads as its name in words.
 * @example eventPhrase('human_message', { entry_point: 'web_ui.follow_up' }) // 'asked a follow-up'
 */
export function eventPhrase(type: string, details: Details): string {
  const phrase = Object.hasOwn(PHRASES, type) ? PHRASES[type]! : null;
  if (phrase === null) return `recorded “${humanise(type)}”`;
  return typeof phrase === 'string' ? phrase : phrase(details);
}

/** Detail keys that name a session: rendered as links. */
export const SESSION_ID_KEYS: ReadonlySet<string> = new Set([
  'session_id',
  'uncle_session_id',
  'acting_session_id',
  'runtime_parent_id',
  'sender_session_id',
  'to_session_id',
  'parent_session_id',
  'old_parent_id',
  'new_parent_id',
]);

/** Detail keys whose string values are names from a fixed vocabulary (kinds, modes, reasons): shown in words. */
export const VOCABULARY_KEYS: ReadonlySet<string> = new Set([
  'kind',
  'mode',
  'via',
  'reason',
  'source',
  'basis',
  'role',
  'genesis',
  'from',
  'channel',
  'entry_point',
  'creator_basis',
  'sender_basis',
  'action',
  'delivery',
  'runtime_origin',
]);

/**
 * A detail key as a label.
 * @example detailLabel('to_session_id') // 'to session'
 */
export function detailLabel(key: string): string {
  return humanise(key.replace(/_ids?$/, (m) => (m === '_ids' ? 's' : '')));
}
