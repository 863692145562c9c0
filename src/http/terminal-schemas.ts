import { z } from '@hono/zod-openapi';
import { WITNESS_ISOLATIONS } from '../core/terminal-witness.js';
import { MAX_PROMPT_LENGTH } from '../core/prompt-match.js';

/** Wire schemas of the terminal witness (docs/design/terminal-channel.md, docs/api.md). */
const Digest = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .openapi({ description: 'lowercase hex SHA-256 of the UTF-8 of the turn, CRLF/CR → LF and trailing whitespace trimmed (the same rule as `…/prompts`)' });
const MAX_TEXT = 256 * 1024;

export const WitnessMinted = z
  .object({
    witness_token: z.string().openapi({ description: "the witness credential (wrt_t_…): good only for this run's `…/terminal/*` reports" }),
    session_id: z.number().int(),
    activation: z.number().int().openapi({ description: 'the activation it is bound to' }),
  })
  .openapi('WitnessCredential');

export const WitnessBody = z.strictObject({}).openapi('WitnessRequest');

export const TurnBody = z
  .strictObject({
    digest: Digest,
    length: z
      .number()
      .int()
      .min(1)
      .max(MAX_PROMPT_LENGTH)
      .openapi({ description: 'code points of the normalized turn (at most 16,777,216); empty turns are not reported' }),
    reliable: z.boolean().openapi({
      description:
        'false when the turn held an escape or control byte other than a paste marker, Backspace/Delete or Enter (cursor keys, history, completion): it is then never witnessed',
    }),
    pasted: z.boolean().openapi({ description: 'the turn held a bracketed paste' }),
  })
  .openapi('TerminalTurn');
export const TurnResponse = z.object({ turn_id: z.number().int() }).openapi('TerminalTurnRecorded');

export const WitnessedPromptBody = z
  .strictObject({
    turn_id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ description: 'the turn `…/terminal/turns` answered' }),
    text: z.string().min(1).max(MAX_TEXT).openapi({ description: "the runner's reconstructed text of the turn (recorded as the human message's content)" }),
    pasted: z.boolean(),
    witness_isolation: z
      .enum(WITNESS_ISOLATIONS)
      .openapi({ description: '`other-uid` when the agent runs as another OS user than the runner, else `same-uid`' }),
  })
  .openapi('WitnessedPrompt');

export const CloseBody = z
  .strictObject({
    turns: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({ description: 'how many turns this run reported with `…/terminal/turns`' }),
  })
  .openapi('TerminalClose');
export const CloseResponse = z.object({ closed: z.literal(true) }).openapi('TerminalClosed');
export const AliveResponse = z.object({ alive: z.literal(true) }).openapi('WitnessAlive');

export const RunPromptBody = z
  .strictObject({
    text: z.string().min(1).max(MAX_TEXT).openapi({
      description: 'the prompt the person gave with `warrant run --prompt` (not empty after line endings are normalized and trailing whitespace trimmed)',
    }),
  })
  .openapi('RunPrompt');
