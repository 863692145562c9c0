import { ApiError, type ApiClient } from '../cli/api-client.js';
import { promptFingerprint } from '../core/prompt-match.js';
import { WITNESS_HEARTBEAT_MS } from '../core/terminal-witness.js';
import type { HookReport } from './runner-socket.js';
import { isReportableTurn, TerminalLine, TurnCandidate, witnessedBy, type CandidateTurn } from './terminal-line.js';

type WitnessIsolation = 'same-uid' | 'other-uid';

/** What the hook queue hands back to the witness once the agent's prompt report has landed. */
export type PromptSnapshot = CandidateTurn<Promise<number | null>> | null;

/** How the hook queue reaches the witness (src/runner/hook-events.ts). */
export interface PromptWitness {
  /** a hook event arrived (at its arrival, not when the queue gets to it): takes or expires the candidate */
  arrived(report: HookReport): PromptSnapshot;
  /** the runner's own agent's prompt report was recorded (`…/prompts`): record the turn if it is the same text */
  promptReported(snapshot: PromptSnapshot, prompt: string): Promise<void>;
}

interface TerminalWitnessOptions {
  /** an ApiClient holding the witness token */
  client: ApiClient;
  sessionId: number;
  isolation: () => WitnessIsolation;
  log: (line: string) => void;
  now?: () => number;
}

/**
 * The terminal witness (docs/human-messages.md, "the agent terminal"): reconstructs the person's
 * turns from the keys the runner relayed, reports each non-empty echo-on turn (`…/terminal/turns`:
 * digest and length), and when the agent's prompt hook reports the same text as the latest
 * unconsumed reliable turn, records the runner's own text as the person's message
 * (`…/terminal/prompts`). The server checks it all again; the witness only refuses earlier.
 */
export class TerminalWitness implements PromptWitness {
  private readonly line = new TerminalLine();
  private readonly candidate = new TurnCandidate<Promise<number | null>>();
  private chain: Promise<unknown> = Promise.resolve();
  private turns = 0;
  private recorded = 0;
  private readonly now: () => number;
  /** the heartbeat: without it (a runner killed before its closing report) the run is a gap */
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: TerminalWitnessOptions) {
    this.now = options.now ?? Date.now;
    this.heartbeat = setInterval(() => {
      this.options.client.json('POST', `/api/v1/sessions/${this.options.sessionId}/terminal/alive`).catch((error: unknown) => {
        this.options.log(`warrant run: the terminal witness's heartbeat did not land (${describe(error)}).`);
      });
    }, WITNESS_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Turns reported so far (the closing report's count). */
  get turnsReported(): number {
    return this.turns;
  }

  /** Human messages recorded so far. */
  get promptsRecorded(): number {
    return this.recorded;
  }

  /** Keys the person typed, before they reach the agent; `echo`: the agent's terminal echoed at that moment. */
  keys(bytes: Uint8Array, echo: boolean): void {
    for (const turn of this.line.feed(bytes, echo)) {
      if (turn.text === '') continue; // Enter on an empty line (dismissing a dialog) is not a prompt
      if (!isReportableTurn(turn)) {
        // a password: never reported, and nothing typed before it may match any more
        this.candidate.clear();
        continue;
      }
      const id = this.reportTurn(turn.text, turn.reliable, turn.pasted);
      this.candidate.ended(id, turn, this.now());
    }
  }

  /** The runner typed into the agent itself (an inbox frame): what the person typed before cannot match. */
  runnerTyped(): void {
    this.line.taint();
    this.candidate.clear();
  }

  arrived(report: HookReport): PromptSnapshot {
    const taken = this.candidate.take(this.now());
    return report.event === 'UserPromptSubmit' ? taken : null;
  }

  async promptReported(snapshot: PromptSnapshot, prompt: string): Promise<void> {
    if (!snapshot || !witnessedBy(snapshot.turn, prompt)) return;
    const turnId = await snapshot.id;
    if (turnId === null) return;
    const { turn } = snapshot;
    try {
      await this.options.client.json('POST', `/api/v1/sessions/${this.options.sessionId}/terminal/prompts`, {
        turn_id: turnId,
        text: turn.text,
        pasted: turn.pasted,
        witness_isolation: this.options.isolation(),
      });
      this.recorded++;
    } catch (error) {
      this.options.log(`warrant run: the typed prompt was not recorded (${describe(error)}); it stays unwitnessed.`);
    }
  }

  /** The closing report: how many turns were reported. Waits for every report first. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.chain;
    try {
      await this.options.client.json('POST', `/api/v1/sessions/${this.options.sessionId}/terminal/close`, { turns: this.turns });
    } catch (error) {
      this.options.log(`warrant run: the terminal witness's closing report did not land (${describe(error)}); this run is a gap.`);
    }
  }

  /** Counted when typed, landed or not: a report that failed makes the count differ, and the run a gap. */
  private reportTurn(text: string, reliable: boolean, pasted: boolean): Promise<number | null> {
    this.turns++;
    const id = this.chain.then(async () => {
      try {
        const fingerprint = await promptFingerprint(text);
        const r = await this.options.client.json<{ turn_id: number }>('POST', `/api/v1/sessions/${this.options.sessionId}/terminal/turns`, {
          ...fingerprint,
          reliable,
          pasted,
        });
        return r.turn_id;
      } catch (error) {
        this.options.log(`warrant run: a typed turn was not reported (${describe(error)}); this run is a gap.`);
        return null;
      }
    });
    this.chain = id;
    return id;
  }
}

function describe(error: unknown): string {
  return error instanceof ApiError ? `${error.token}: ${error.message}` : (error as Error).message;
}
