import type { ColumnType, Generated } from 'kysely';
import type { PromptReportsTable, RunPromptsTable, SessionRunnersTable, TerminalTurnsTable, TerminalWitnessesTable } from './terminal-tables.js';

/**
 * Kysely table types. Booleans are integers 0/1 and timestamps ISO-8601 UTC text on both
 * dialects, so one query serves both; the row mappers in the repositories convert them.
 */
interface SessionsTable {
  id: Generated<number>;
  uid: string;
  title: string | null;
  slug: string | null;
  status: string;
  owner_user_id: number | null;
  agent_root: string | null;
  genesis: string;
  scheduling_class: string;
  parent_session_id: number | null;
  parent_basis: string | null;
  creator_actor_id: number | null;
  creator_basis: string | null;
  cause_actor_id: number | null;
  cause_basis: string | null;
  model: string | null;
  starred: Generated<number>;
  messaging: Generated<string>;
  custom_metadata: Generated<string>;
  provider: string | null;
  provider_conversation: string | null;
  runtime_parent_id: number | null;
  runtime_origin: string | null;
  runtime_conversation_id: string | null;
  activation: Generated<number>;
  stop_requested: Generated<number>;
  failure_reason: string | null;
  event_seq: Generated<number>;
  version: Generated<number>;
  created_at: string;
  updated_at: string;
  /** the activation whose runner owns delivery into the agent (`delivery: "runner"` on attach) */
  runner_delivery_activation: ColumnType<number | null, number | null | undefined, number | null>;
}

interface SessionPromptsTable {
  session_id: number;
  prompt: string | null;
  original_prompt: string | null;
}

interface SessionTranscriptsTable {
  id: Generated<number>;
  session_id: number;
  /** the provider's line exactly as written (rows from before offsets: a JSON text) */
  record: string;
  created_at: string;
  provider: string | null;
  conversation_id: string | null;
  /** pg returns bigint as a string: mapped in transcripts-repo.ts */
  byte_offset: ColumnType<number | string | null, number | null, number | null>;
  restarted: Generated<number>;
}

interface TranscriptPositionsTable {
  session_id: number;
  provider: string;
  conversation_id: string;
  next_offset: ColumnType<number | string, number, number>;
  updated_at: string;
}

interface ActorsTable {
  id: Generated<number>;
  kind: string;
  ref: string;
  created_at: string;
}

interface UsersTable {
  id: Generated<number>;
  key: string;
  display_name: string;
  email: string | null;
  slack_user_ids: string; // JSON array of strings
  notes: string | null;
  is_admin: number;
  password_hash: string | null;
  removed_at: string | null;
  created_at: string;
  updated_at: string;
}

interface TokensTable {
  id: Generated<number>;
  kind: string;
  token_hash: string;
  label: string | null;
  user_id: number | null;
  client_name: string | null;
  session_id: number | null;
  activation: number | null;
  issued_by_actor_id: number | null;
  created_at: string;
  revoked_at: string | null;
}

interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

interface IdempotencyKeysTable {
  credential_id: number;
  key: string;
  request_hash: string;
  session_id: number | null;
  response: string | null;
  created_at: string;
}

export interface SessionEventsTable {
  id: Generated<number>;
  session_id: number;
  seq: number;
  type: string;
  details: string;
  actor_id: number | null;
  actor_basis: string | null;
  caused_by_actor_id: number | null;
  cause_basis: string | null;
  credential_id: number | null;
  created_at: string;
  /** hex key of the HMAC over the details in the audit entry (docs/attribution.md); null for runtime state */
  digest_key: ColumnType<string | null, string | null | undefined, never>;
}

interface InboxItemsTable {
  id: Generated<number>;
  session_id: number;
  kind: string;
  mode: string;
  content: string;
  details: string;
  sender_actor_id: number | null;
  sender_basis: string | null;
  sender_session_id: number | null;
  cause_actor_id: number | null;
  cause_basis: string | null;
  credential_id: number | null;
  state: string;
  lease_expires_at: string | null;
  delivered_at: string | null;
  lease_count: Generated<number>;
  leased_at: string | null;
  withdrawn_at: string | null;
  created_at: string;
  updated_at: string;
  /** agent messages (docs/messages.md): the deadline after which the item expires undelivered */
  expires_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** the provider conversations of sender and target when the item was added (the reply rule) */
  sender_conversation: ColumnType<string | null, string | null | undefined, string | null>;
  target_conversation: ColumnType<string | null, string | null | undefined, string | null>;
  /** written into the agent by its runner: when, until when a prompt report is awaited, and the frame's digest and length */
  written_at: ColumnType<string | null, string | null | undefined, string | null>;
  written_deadline: ColumnType<string | null, string | null | undefined, string | null>;
  frame_digest: ColumnType<string | null, string | null | undefined, string | null>;
  frame_length: ColumnType<number | null, number | null | undefined, number | null>;
  /** a stop's control item whose runtime ended */
  retired_at: ColumnType<string | null, string | null | undefined, string | null>;
}

interface CountersTable {
  name: string;
  value: number;
}

interface LiveEventsTable {
  id: number;
  type: string;
  session_id: number | null;
  owner_user_id: number | null;
  payload: string;
  created_at: string;
}

interface SessionDeletionsTable {
  id: Generated<number>;
  session_id: number;
  session_uid: string;
  last_title: string | null;
  deleted_at: string;
  actor_id: number | null;
  actor_basis: string | null;
  caused_by_actor_id: number | null;
  cause_basis: string | null;
  credential_id: number | null;
  owner_user_id: number | null;
  lineage_parent_id: number | null;
  via: string;
  affected: string;
  event_count: number;
  human_message_count: number;
  /** hex key of the HMAC over the last title in the audit entry (docs/attribution.md) */
  digest_key: ColumnType<string | null, string | null | undefined, never>;
}

interface AuditLogTable {
  seq: number;
  entry: string;
  prev_hash: string;
  hash: string;
}

interface AuditCheckpointsTable {
  id: Generated<number>;
  seq: number;
  hash: string;
  signed_at: string;
  key_name: string;
  key_hash: string;
  note: string;
  /** the Merkle root (hex) a tlog-checkpoint signs; null on the chain-head checkpoints signed before (migration 016) */
  root_hash: ColumnType<string | null, string | null | undefined, never>;
}

/** docs/audit-log.md: the perfect subtrees of the log's Merkle tree (level 0: leaf hashes). */
interface AuditTreeNodesTable {
  level: number;
  idx: number;
  hash: string;
}

interface SessionUnclesTable {
  session_id: number;
  uncle_session_id: number;
  source: string;
  basis: string;
  recorded_by_actor_id: number | null;
  created_at: string;
}

interface HumanMessagesTable {
  id: Generated<number>;
  session_id: number;
  inbox_item_id: number | null;
  author_actor_id: number;
  author_key: string;
  channel: string;
  entry_point: string;
  content: string;
  slack_permalink: string | null;
  digest_key: string;
  created_at: string;
  witness_isolation: string | null;
}

interface HumanMessageWithdrawalsTable {
  id: Generated<number>;
  human_message_id: number;
  session_id: number;
  actor_id: number | null;
  actor_basis: string | null;
  created_at: string;
}

interface CoverageLogTable {
  id: Generated<number>;
  channel: string;
  instrumented: number;
  reason: string;
  created_at: string;
}

interface SlackDeliveriesTable {
  key: string;
  received_at: string;
}

interface SlackThreadsTable {
  channel: string;
  thread_ts: string;
  session_id: number;
}

interface WebLoginLinksTable {
  id: Generated<number>;
  secret_hash: string;
  purpose: string;
  user_id: number | null;
  issued_via: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

interface WebSessionsTable {
  id: Generated<number>;
  credential_id: number;
  user_id: number;
  method: string;
  login_link_id: number | null;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ended_at: string | null;
}

interface AgentMessagesTable {
  seq: Generated<number>;
  id: string;
  ref: string;
  ref_minted: number;
  content_sha256: string;
  conversation_ref: string;
  reply_to: string | null;
  source_session_id: number;
  source_basis: string;
  source_activation: number;
  source_conversation: string | null;
  sender_actor_id: number;
  cause_actor_id: number | null;
  cause_basis: string | null;
  credential_id: number | null;
  target_session_id: number;
  target_conversation: string | null;
  inbox_item_id: number | null;
  deadline: string;
  /** null once retention reclaimed it */
  payload: string | null;
  payload_bytes: number;
  payload_sha256: string;
  /** hex key of the HMAC over the payload in the audit log (docs/attribution.md); reclaimed with the payload */
  digest_key: string | null;
  state: string;
  accepted_at: string;
  terminal_at: string | null;
  terminal_reason: string | null;
  reclaimed_at: string | null;
}

interface MessageHistoryTable {
  seq: Generated<number>;
  message_id: string;
  schema_version: number;
  ref: string;
  conversation_ref: string;
  reply_to: string | null;
  source_session_id: number;
  source_basis: string;
  source_activation: number;
  source_conversation: string | null;
  target_session_id: number;
  target_conversation: string | null;
  deadline: string;
  payload_bytes: number;
  payload_sha256: string;
  state: string;
  accepted_at: string;
  terminal_at: string;
  terminal_reason: string;
  recorded_at: string;
}

interface SessionConversationsTable {
  id: Generated<number>;
  session_id: number;
  provider: string | null;
  conversation_id: string;
  transcript_path: string | null;
  observed_at: string;
  source: string;
  title: string | null;
  owner_user_id: number | null;
  origin_id: number | null;
  recorded_by_actor_id: number | null;
  actor_basis: string | null;
  credential_id: number | null;
}

interface DeletionLinksTable {
  session_id: number;
  deletion_id: number;
}

export interface Database {
  terminal_witnesses: TerminalWitnessesTable;
  terminal_turns: TerminalTurnsTable;
  prompt_reports: PromptReportsTable;
  run_prompts: RunPromptsTable;
  deletion_links: DeletionLinksTable;
  session_runners: SessionRunnersTable;
  agent_messages: AgentMessagesTable;
  message_history: MessageHistoryTable;
  session_conversations: SessionConversationsTable;
  human_messages: HumanMessagesTable;
  human_message_withdrawals: HumanMessageWithdrawalsTable;
  coverage_log: CoverageLogTable;
  slack_deliveries: SlackDeliveriesTable;
  slack_threads: SlackThreadsTable;
  web_login_links: WebLoginLinksTable;
  web_sessions: WebSessionsTable;
  session_uncles: SessionUnclesTable;
  lineage_versions: { bucket: number; version: number };
  session_deletions: SessionDeletionsTable;
  audit_log: AuditLogTable;
  audit_checkpoints: AuditCheckpointsTable;
  audit_tree_nodes: AuditTreeNodesTable;
  sessions: SessionsTable;
  session_prompts: SessionPromptsTable;
  session_transcripts: SessionTranscriptsTable;
  transcript_positions: TranscriptPositionsTable;
  actors: ActorsTable;
  users: UsersTable;
  tokens: TokensTable;
  settings: SettingsTable;
  idempotency_keys: IdempotencyKeysTable;
  session_events: SessionEventsTable;
  inbox_items: InboxItemsTable;
  counters: CountersTable;
  live_events: LiveEventsTable;
}
