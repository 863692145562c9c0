import type { ApiClient } from '../cli/api-client.js';
import type { LeasedItem } from './inbox-feed.js';

/** Bracketed paste: the agent takes the frame as one paste, however many lines it has. */
const PASTE_START = '\u001b[200~';
const PASTE_END = '\u001b[201~';
/** The agent's submit key (Claude Code and Codex: Enter). */
const SUBMIT = '\r';
/** Give the agent's line editor a moment to take the paste before the submit key. */
const SUBMIT_DELAY_MS = 60;

/**
 * The person's input line, as far as the relay can tell from their keys: empty after Enter,
 * Ctrl-C or Ctrl-U; not empty after anything printable, a paste or a key it cannot interpret
 * (an arrow may recall history). Backspace removes one counted character.
 */
export class HumanLine {
  private length = 0;
  private unknown = false;

  get empty(): boolean {
    return this.length === 0 && !this.unknown;
  }

  feed(bytes: Buffer): void {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (b === 0x0d || b === 0x0a || b === 0x03 || b === 0x15) {
        this.length = 0;
        this.unknown = false;
      } else if (b === 0x7f || b === 0x08) {
        this.length = Math.max(0, this.length - 1);
      } else if (b === 0x1b) {
        this.unknown = true;
        // skip the rest of a CSI/SS3 sequence
        if (bytes[i + 1] === 0x5b || bytes[i + 1] === 0x4f) {
          i += 2;
          while (i < bytes.length && (bytes[i]! < 0x40 || bytes[i]! > 0x7e)) i++;
        }
      } else if (b >= 0x20 || b === 0x09) {
        // a UTF-8 continuation byte is part of the character already counted
        if ((b & 0xc0) !== 0x80) this.length++;
      } else {
        this.unknown = true;
      }
    }
  }
}

interface TerminalTarget {
  type(bytes: string): void;
  holdKeys(hold: boolean): void;
}

/**
 * Interactive delivery: when the agent is idle (its stop hook reported it, or it started and
 * has taken no prompt yet) and the person's input line is empty, the runner holds the person's
 * keys, types the next inbox item's frame as one bracketed paste, submits it, releases the keys,
 * and reports it `written`. Only the agent's prompt hook reporting the same text makes it
 * delivered (the server matches). One item per idle turn.
 */
export class TerminalDelivery {
  private agentReady = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  readonly line = new HumanLine();

  constructor(
    private readonly client: ApiClient,
    private readonly sessionId: number,
    private readonly terminal: TerminalTarget,
    private readonly log: (line: string) => void,
    private readonly intervalMs = 500,
  ) {}

  /** The agent's state as its hooks report it: ready for a turn, or taking one. */
  agentState(state: 'ready' | 'busy'): void {
    this.agentReady = state === 'ready';
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.busy || !this.agentReady || !this.line.empty) return;
    this.busy = true;
    try {
      const leased = await this.client.json<{ items: LeasedItem[] }>('POST', `/api/v1/sessions/${this.sessionId}/inbox/lease`, {
        max_items: 1,
        runtime_idle: true,
      });
      const item = leased.items.find((i) => i.kind !== 'control');
      if (!item || this.stopped || !this.agentReady || !this.line.empty) return; // a lease not written lapses back to pending
      this.terminal.holdKeys(true);
      try {
        this.terminal.type(PASTE_START + item.frame.text + PASTE_END);
        await new Promise((r) => setTimeout(r, SUBMIT_DELAY_MS));
        this.terminal.type(SUBMIT);
      } finally {
        this.terminal.holdKeys(false);
      }
      this.agentReady = false;
      await this.client.json('POST', `/api/v1/sessions/${this.sessionId}/inbox/written`, { ids: [item.id] });
    } catch (error) {
      this.log(`warrant run: inbox: ${(error as Error).message}`);
    } finally {
      this.busy = false;
    }
  }
}
