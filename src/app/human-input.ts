import type { Caller } from './caller.js';
import type { WriteScope } from './write-scope.js';

/**
 * Where human-message capture hooks in (spec 03 "What is captured"). A surface that takes a
 * human's own words at an authenticated input boundary passes them here as `HumanInput`,
 * with the entry point they were typed at; the use case calls `recordHumanInput` inside the
 * transaction of the act it rides on ("capture is part of the act").
 *
 * Capture itself is not built in this branch: no recorder is registered, so nothing is
 * recorded and no surface claims otherwise. The human-message capability registers its
 * recorder in `humanInputRecorders` (or replaces `recordHumanInput`); the call sites stay.
 */
export type HumanEntryPoint =
  | 'web_ui.new_session'
  | 'web_ui.quick_prompt'
  | 'web_ui.chat_bubble'
  | 'web_ui.follow_up'
  | 'web_ui.enqueued_message'
  | 'web_ui.interrupt';

export interface HumanInput {
  entryPoint: HumanEntryPoint;
  /** the human's words exactly as typed — never a wrapper the UI composed around them */
  content: string;
}

export type HumanInputRecorder = (w: WriteScope, target: { sessionId: number; inboxItemId?: number | null }, caller: Caller, input: HumanInput) => Promise<void>;

export const humanInputRecorders: HumanInputRecorder[] = [];

export async function recordHumanInput(w: WriteScope, target: { sessionId: number; inboxItemId?: number | null }, caller: Caller, input: HumanInput | null | undefined): Promise<void> {
  if (!input) return;
  for (const record of humanInputRecorders) await record(w, target, caller, input);
}
