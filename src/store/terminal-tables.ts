import type { Generated } from 'kysely';

/**
 * The terminal channel's tables (docs/design/terminal-channel.md): what a runner said at attach,
 * and what its witness and the agent's prompt hook reported. Same conventions as database.ts.
 */

/** 012: what the runner said at attach, per activation (docs/design/terminal-channel.md) */
export interface SessionRunnersTable {
  session_id: number;
  activation: number;
  tty: number;
  attached_at: string;
}

/** 013: the terminal witness (docs/design/terminal-channel.md) */
export interface TerminalWitnessesTable {
  session_id: number;
  activation: number;
  credential_id: number;
  user_id: number;
  minted_at: string;
  closed_at: string | null;
  closed_turns: number | null;
  /** the runner's last heartbeat (…/terminal/alive); null until its first */
  heard_at: string | null;
}

export interface TerminalTurnsTable {
  id: Generated<number>;
  session_id: number;
  activation: number;
  digest: string;
  length: number;
  reliable: number;
  pasted: number;
  reported_at: string;
  human_message_id: number | null;
  consumed_at: string | null;
}

export interface PromptReportsTable {
  id: Generated<number>;
  session_id: number;
  activation: number;
  digest: string;
  length: number;
  reported_at: string;
  matched_kind: string | null;
  matched_inbox_item_id: number | null;
  matched_turn_id: number | null;
  matched_at: string | null;
}

export interface RunPromptsTable {
  session_id: number;
  activation: number;
  human_message_id: number;
  digest: string;
  length: number;
  created_at: string;
}
