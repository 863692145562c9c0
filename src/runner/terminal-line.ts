import { normalizePrompt } from '../core/prompt-match.js';

/**
 * The terminal witness's line model (docs/human-messages.md, "the agent terminal"): the turns a
 * person submitted, reconstructed from the bytes their terminal sent, deliberately small so that
 * anything it cannot follow is never attributed.
 *
 * - printable characters and the contents of a bracketed paste append (a paste marks the turn
 *   `pasted`); Backspace (DEL or BS) removes the last code point; CR (the agent's submit key)
 *   ends the turn;
 * - any other byte — an escape sequence that is not a paste marker (cursor keys, history
 *   recall, Alt-keys, focus reports), Tab (completion), LF, Ctrl-anything — marks the turn
 *   unreliable: the agent's line editor may have done something the model does not follow;
 * - a turn typed while the agent's terminal hid typing (echo off on a canonical line: a password
 *   prompt; native-witness.ts `typingHidden`) is `echoOff`: it is never reported and never matches.
 *
 * Pure: no clock, no I/O. The caller passes, for each chunk, whether typing was visible (`echo`).
 */

export interface TerminalTurn {
  /** the reconstructed text, normalized as prompt reports are (core/prompt-match.ts) */
  text: string;
  reliable: boolean;
  pasted: boolean;
  /** some of its keys were typed while the PTY had echo off */
  echoOff: boolean;
}

const ESC = 0x1b;
const CR = 0x0d;
const BS = 0x08;
const DEL = 0x7f;
const PASTE_START = '[200~';
const PASTE_END = '[201~';

type EscapeState =
  /** not inside an escape sequence */
  | { kind: 'none' }
  /** ESC seen, nothing after it yet */
  | { kind: 'esc' }
  /** ESC [ … : parameters and intermediates so far */
  | { kind: 'csi'; body: string }
  /** ESC O: one more byte ends it */
  | { kind: 'ss3' }
  /** ESC ] or ESC P/X/^/_ : a string sequence, ended by BEL or ESC \ */
  | { kind: 'string'; sawEsc: boolean };

export class TerminalLine {
  private chars: string[] = [];
  private reliable = true;
  private pasted = false;
  private echoOff = false;
  private pasting = false;
  private escape: EscapeState = { kind: 'none' };
  /** bytes of a UTF-8 character not yet complete */
  private partial: number[] = [];
  private partialNeed = 0;

  /**
   * Feeds one chunk the person's terminal sent. Returns the turns it ended (a chunk may hold
   * several Enters), empty ones included: the caller decides what counts.
   */
  feed(bytes: Uint8Array, echo: boolean): TerminalTurn[] {
    const ended: TerminalTurn[] = [];
    if (!echo && bytes.length > 0) this.echoOff = true;
    for (const b of bytes) {
      const turn = this.byte(b);
      if (turn) ended.push(turn);
    }
    return ended;
  }

  /** The runner itself typed into the agent (an inbox frame): the turn in progress is no longer the person's alone. */
  taint(): void {
    this.reliable = false;
  }

  private byte(b: number): TerminalTurn | null {
    if (this.escape.kind !== 'none') return this.escapeByte(b);
    if (this.partialNeed > 0) {
      if ((b & 0xc0) === 0x80) {
        this.partial.push(b);
        if (this.partial.length === this.partialNeed) this.flushPartial();
        return null;
      }
      // a broken UTF-8 sequence: what the agent made of it is unknown
      this.dropPartial();
    }
    if (b === ESC) {
      this.escape = { kind: 'esc' };
      return null;
    }
    if (this.pasting) {
      // inside a paste, line breaks and tabs are text; other control bytes are not followed
      if (b === CR || b === 0x0a) this.chars.push('\n');
      else if (b === 0x09) this.chars.push('\t');
      else if (b < 0x20 || b === DEL) this.reliable = false;
      else this.textByte(b);
      return null;
    }
    if (b === CR) return this.submit();
    if (b === DEL || b === BS) {
      this.chars.pop();
      return null;
    }
    if (b < 0x20) {
      this.reliable = false;
      return null;
    }
    this.textByte(b);
    return null;
  }

  private textByte(b: number): void {
    if (b < 0x80) return void this.chars.push(String.fromCharCode(b));
    const need = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    if (need === 0) {
      this.reliable = false; // not the first byte of any UTF-8 character
      return;
    }
    this.partial = [b];
    this.partialNeed = need;
  }

  private flushPartial(): void {
    const text = Buffer.from(this.partial).toString('utf8');
    this.partial = [];
    this.partialNeed = 0;
    const chars = [...text];
    const cp = chars.length === 1 ? chars[0]!.codePointAt(0)! : 0xfffd;
    // overlong or surrogate encodings decode to U+FFFD, and C1 controls are not text
    if (cp === 0xfffd || (cp >= 0x80 && cp < 0xa0)) this.reliable = false;
    else this.chars.push(chars[0]!);
  }

  private dropPartial(): void {
    this.partial = [];
    this.partialNeed = 0;
    this.reliable = false;
  }

  /**
   * Inside an escape sequence. An ESC or a control byte cuts the sequence off (unreliable) and is
   * then read afresh, so Enter after a lone Escape still ends the turn and a paste marker after
   * a broken sequence is still seen.
   */
  private escapeByte(b: number): TerminalTurn | null {
    const s = this.escape;
    const cutOff = (): TerminalTurn | null => {
      this.reliable = false;
      this.escape = { kind: 'none' };
      return this.byte(b);
    };
    switch (s.kind) {
      case 'esc':
        if (b === 0x5b) this.escape = { kind: 'csi', body: '[' };
        else if (b === 0x4f) this.escape = { kind: 'ss3' };
        else if (b === 0x5d || b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) this.escape = { kind: 'string', sawEsc: false };
        else if (b === ESC || b < 0x20) return cutOff();
        else {
          // Alt+key
          this.reliable = false;
          this.escape = { kind: 'none' };
        }
        return null;
      case 'ss3':
        if (b === ESC || b < 0x20) return cutOff();
        this.reliable = false;
        this.escape = { kind: 'none' };
        return null;
      case 'string':
        this.reliable = false;
        if (b === 0x07 || (s.sawEsc && b === 0x5c)) this.escape = { kind: 'none' };
        else if (s.sawEsc) {
          // ESC then not "\": a new sequence began at that ESC
          this.escape = { kind: 'esc' };
          return this.byte(b);
        } else if (b === ESC) s.sawEsc = true;
        else if (b < 0x20) return cutOff();
        return null;
      case 'csi': {
        if (b === ESC || b < 0x20) return cutOff();
        s.body += String.fromCharCode(b);
        if (b >= 0x40 && b <= 0x7e) {
          this.escape = { kind: 'none' };
          this.csi(s.body);
        } else if (b > 0x7e || s.body.length > 32) {
          // not a well-formed CSI sequence
          this.reliable = false;
          this.escape = { kind: 'none' };
        }
        return null;
      }
      default:
        return null;
    }
  }

  private csi(body: string): void {
    if (body === PASTE_START && !this.pasting) {
      this.pasting = true;
      this.pasted = true;
      return;
    }
    if (body === PASTE_END && this.pasting) {
      this.pasting = false;
      return;
    }
    this.reliable = false;
  }

  private submit(): TerminalTurn {
    if (this.partialNeed > 0) this.dropPartial();
    const turn: TerminalTurn = { text: normalizePrompt(this.chars.join('')), reliable: this.reliable, pasted: this.pasted, echoOff: this.echoOff };
    this.chars = [];
    this.reliable = true;
    this.pasted = false;
    this.echoOff = false;
    return turn;
  }
}

/** A turn worth reporting as relayed: it has words and was typed with echo on. */
export function isReportableTurn(turn: TerminalTurn): boolean {
  return turn.text !== '' && !turn.echoOff;
}

/** How long the latest turn stays a candidate for the agent's prompt report. */
export const TURN_CANDIDATE_MS = 5_000;

export interface CandidateTurn<Id> {
  id: Id;
  turn: TerminalTurn;
  endedAt: number;
}

/**
 * Only the latest turn is a candidate, and only until the next hook event or 5 s after it ended.
 * `take` is called when a hook event arrives: for the agent's prompt report it hands back the
 * candidate (at most once), for any other event it only expires it.
 */
export class TurnCandidate<Id> {
  private latest: CandidateTurn<Id> | null = null;

  /** A non-empty turn ended (an echo-off one too: it supersedes the previous candidate but never matches). */
  ended(id: Id, turn: TerminalTurn, at: number): void {
    this.latest = { id, turn, endedAt: at };
  }

  /** Something that was not the person's typing went into the agent: no turn before it may match. */
  clear(): void {
    this.latest = null;
  }

  /** A hook event arrived at `at`: the candidate is consumed (or expired) either way. */
  take(at: number): CandidateTurn<Id> | null {
    const c = this.latest;
    this.latest = null;
    if (!c || at - c.endedAt > TURN_CANDIDATE_MS || at < c.endedAt) return null;
    return c;
  }
}

/**
 * Whether the agent's prompt report attributes the candidate turn to the person: the same text
 * under the one normalization rule, and a turn the model followed with echo on.
 */
export function witnessedBy(candidate: TerminalTurn | null, reportedPrompt: string): boolean {
  if (!candidate || !candidate.reliable || candidate.echoOff || candidate.text === '') return false;
  return normalizePrompt(reportedPrompt) === candidate.text;
}
